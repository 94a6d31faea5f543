//===----------------------------------------------------------------------===//
//
// This source file is part of the Switchboard open source project
//
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//

import SwitchboardTransport

/// A value kept out of line, in its own allocation made at the first change: state an object holds for a feature most
/// of its instances never use costs one pointer until then (`ProtocolApplication.social`, `HTTPSession.request`).
/// Reads before the first change see `Value()`; `release()` drops the allocation (reads see `Value()` again).
/// Confined to its owner's queue.
@propertyWrapper
struct OutOfLine<Value: OutOfLineValue> {
    private final class Box {
        var value: Value
        init(_ value: Value) { self.value = value }
    }

    private var box: Box?

    init() {}

    var wrappedValue: Value {
        _read {
            if let box { yield box.value } else { yield Value() }
        }
        _modify {
            if box == nil { box = Box(Value()) }
            yield &box!.value
        }
    }

    /// Drops the allocation.
    mutating func release() { box = nil }
}
