//===----------------------------------------------------------------------===//
//
// This source file is part of the Switchboard open source project
//
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//

import SwitchboardTransport

/// A reference to a loop-confined object that may travel to other queues but is only dereferenced on
/// its loop (asserted). It resolves to nothing once the object closed.
struct LoopBound<T: LoopAnchored>: @unchecked Sendable {
    // @unchecked Sendable: the object is only dereferenced on its loop (`LoopAnchor.target` asserts it).
    private let anchor: LoopAnchor<T>
    var loop: EventLoop { anchor.loop }

    init(_ value: T) {
        anchor = value.loopAnchor
    }
    /// Runs `body` on the loop if the object is still open.
    func execute(_ body: @escaping @Sendable (T) -> Void) {
        let me = self
        loop.execute {
            if let v = me.valueOnLoop { body(v) }
        }
    }
    /// Runs `body` on the loop if the object is still open, `orElse` (on the loop) if it closed.
    func execute(_ body: @escaping @Sendable (T) -> Void, orElse: @escaping @Sendable () -> Void) {
        let me = self
        loop.execute {
            if let v = me.valueOnLoop { body(v) } else { orElse() }
        }
    }
    /// The object, if it is still open; only on its loop.
    var valueOnLoop: T? { anchor.target }
}
