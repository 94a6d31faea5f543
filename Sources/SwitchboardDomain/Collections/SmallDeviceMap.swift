//===----------------------------------------------------------------------===//
//
// This source file is part of the Switchboard open source project
//
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//

// A user's devices, in the per-user state of the presence and active-hours trackers: most users have one device,
// and these keep it inline (a dictionary or set would allocate its storage for each online user).

/// A map from device ids to values that holds one entry inline (also `SessionRegistry`'s devices of a user, keyed by
/// connection). Inlinable: the registry reads it for every recipient of a fan-out.
public struct SmallDeviceMap<Value: Sendable>: Sendable {
    /// The first entry (nil when empty).
    @usableFromInline var first: (device: UInt64, value: Value)?
    /// The others, in no particular order.
    @usableFromInline var more: [(device: UInt64, value: Value)] = []

    public init() {}

    @inlinable public var isEmpty: Bool { first == nil }
    @inlinable public var count: Int { first == nil ? 0 : 1 + more.count }

    /// The value of `device`; setting nil removes it.
    @inlinable public subscript(device: UInt64) -> Value? {
        get {
            if let first, first.device == device { return first.value }
            return more.first { $0.device == device }?.value
        }
        set {
            if let newValue {
                if first == nil || first!.device == device {
                    first = (device, newValue)
                } else if let i = more.firstIndex(where: { $0.device == device }) {
                    more[i].value = newValue
                } else {
                    more.append((device, newValue))
                }
            } else {
                removeValue(forKey: device)
            }
        }
    }

    /// Removes `device`; returns its value if it was there.
    @inlinable @discardableResult
    public mutating func removeValue(forKey device: UInt64) -> Value? {
        let removed: Value
        if let first, first.device == device {
            removed = first.value
            self.first = more.popLast()
        } else if let i = more.firstIndex(where: { $0.device == device }) {
            removed = more[i].value
            more.swapAt(i, more.count - 1)
            more.removeLast()
        } else {
            return nil
        }
        if more.isEmpty { more = [] }  // no storage kept for one device
        return removed
    }

    /// Every value, in no particular order.
    @inlinable public var values: [Value] {
        guard let first else { return [] }
        return [first.value] + more.map(\.value)
    }

    /// Calls `body` with each value, in no particular order, without making an array.
    @inlinable public func forEachValue(_ body: (Value) -> Void) {
        guard let first else { return }
        body(first.value)
        for entry in more { body(entry.value) }
    }

    /// The largest value (nil when empty), without making an array.
    @inlinable public func maxValue() -> Value? where Value: Comparable {
        guard var best = first?.value else { return nil }
        for entry in more where entry.value > best { best = entry.value }
        return best
    }
}
