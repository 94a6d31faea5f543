//===----------------------------------------------------------------------===//
//
// This source file is part of the Switchboard open source project
//
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//

import Dispatch
import SwitchboardTransport
import Testing

@testable import SwitchboardServer

/// `LoopAnchor.dropUnused`: an object lets go of its anchor only while no `LoopBound` holds it, and handles made
/// before and after still resolve to the object until it closes.
struct LoopAnchorTests {
    final class Object: LoopAnchored, @unchecked Sendable {
        let loop: EventLoop
        var anchor: LoopAnchor<Object>?
        var closed = false
        init(loop: EventLoop) { self.loop = loop }
        var loopAnchor: LoopAnchor<Object> { LoopAnchor.kept(in: &anchor, for: self, open: !closed, loop: loop) }
        func close() {
            closed = true
            anchor?.release()
        }
    }

    @Test func anAnchorHeldByAHandleStaysAndAnUnusedOneGoes() throws {
        let group = try EventLoopGroup(loopCount: 1)
        defer { group.shutdown() }
        let loop = group.nextLoop()
        loop.queue.sync {
            let object = Object(loop: loop)
            LoopAnchor.dropUnused(in: &object.anchor)  // none yet
            #expect(object.anchor == nil)
            var handle: LoopBound<Object>? = LoopBound(object)
            var first = object.anchor
            #expect(first != nil)
            LoopAnchor.dropUnused(in: &object.anchor)
            #expect(object.anchor === first, "a handle holds it: kept")
            #expect(handle?.valueOnLoop === object)
            handle = nil
            first = nil
            _ = (handle, first)
            LoopAnchor.dropUnused(in: &object.anchor)
            #expect(object.anchor == nil, "no handle holds it: dropped")
            // a new handle gets a new anchor, released when the object closes
            let later = LoopBound(object)
            #expect(later.valueOnLoop === object)
            object.close()
            #expect(later.valueOnLoop == nil)
            LoopAnchor.dropUnused(in: &object.anchor)
            #expect(object.anchor != nil, "the handle still holds it")
        }
    }
}
