//===----------------------------------------------------------------------===//
//
// This source file is part of the Switchboard open source project
//
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//

import SwitchboardTransport

/// What a `LoopBound` holds instead of the object: a strong reference to it until the object closes
/// (`release()`), then nothing.
///
/// Not a weak reference to the object: in Swift an object that is ever referenced weakly gets a side table,
/// and every later retain and release of it goes through the runtime's slow path. A connection's
/// `ProtocolApplication` is retained several times per delivery: its side table cost 12% of the server's CPU in a
/// 1,000-member fan-out (issue 17). The cycle object → anchor → object is broken by `release()`, which the
/// object calls when its connection closes (it always does: the transport closes every connection).
final class LoopAnchor<T: AnyObject>: @unchecked Sendable {
    // @unchecked Sendable: `target` is only touched on `loop.queue` (`target` asserts it; `release` is called by
    // the object on its loop).
    let loop: EventLoop
    // protected by loop.queue
    private var object: T?

    /// - Parameter object: nil for an object that closed already (its handles resolve to nothing).
    init(_ object: T?, loop: EventLoop) {
        self.object = object
        self.loop = loop
    }

    /// The object, until it closed; only on its loop.
    var target: T? {
        loop.assertOnLoop()
        return object
    }

    /// The anchor kept in `slot` by an object, made on first use (already released if the object is closed). On
    /// the loop.
    static func kept(in slot: inout LoopAnchor<T>?, for object: T, open: Bool, loop: EventLoop) -> LoopAnchor<T> {
        loop.assertOnLoop()
        if let slot { return slot }
        let made = LoopAnchor(open ? object : nil, loop: loop)
        slot = made
        return made
    }

    /// Lets go of the anchor kept in `slot` when no handle holds it any more (the next handle makes a new one), so
    /// an idle object keeps none: 48 bytes of heap per idle connection. Only when unique: a handle still out there
    /// keeps the anchor its object will release. On the loop.
    static func dropUnused(in slot: inout LoopAnchor<T>?) {
        guard slot != nil else { return }
        slot!.loop.assertOnLoop()
        if isKnownUniquelyReferenced(&slot) { slot = nil }
    }

    /// The object closed: its handles resolve to nothing from now on. On its loop.
    func release() {
        loop.assertOnLoop()
        object = nil
    }
}
