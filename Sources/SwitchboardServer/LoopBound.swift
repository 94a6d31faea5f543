//===----------------------------------------------------------------------===//
//
// This source file is part of the Switchboard open source project
//
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//

import SwitchboardTransport

/// A reference to a loop-confined object that may travel to other queues but is only dereferenced on
/// its loop (asserted).
struct LoopBound<T: AnyObject>: @unchecked Sendable {
    // @unchecked Sendable: `value` is only dereferenced on `loop.queue` (`valueOnLoop` asserts it).
    let loop: EventLoop
    private weak var value: T?
    init(_ value: T, loop: EventLoop) {
        self.value = value
        self.loop = loop
    }
    /// Runs `body` on the loop if the object still exists.
    func execute(_ body: @escaping @Sendable (T) -> Void) {
        let me = self
        loop.execute {
            if let v = me.valueOnLoop { body(v) }
        }
    }
    /// Runs `body` on the loop if the object still exists, `orElse` (on the loop) if it is gone.
    func execute(_ body: @escaping @Sendable (T) -> Void, orElse: @escaping @Sendable () -> Void) {
        let me = self
        loop.execute {
            if let v = me.valueOnLoop { body(v) } else { orElse() }
        }
    }
    /// The object, if it still exists; only on its loop.
    var valueOnLoop: T? {
        loop.assertOnLoop()
        return value
    }
}
