//===----------------------------------------------------------------------===//
//
// This source file is part of the Switchboard open source project
//
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//

import Dispatch
import Foundation
import Logging
import SwitchboardCore
import SwitchboardDomain
import SwitchboardProtocol
import SwitchboardStore
import SwitchboardTransport
import SwitchboardWebSocket
import Synchronization

#if canImport(Glibc)
import Glibc
#endif

/// Per-loop context shared by that loop's sessions (no per-connection copies of configuration).
///
/// Holds its server strongly (sessions may outlive a dropped `HubServer` reference by a few callbacks); the
/// cycle server -> contexts (and loops' sweep observers, the transport's handler factory) -> context -> server
/// is broken when the server stops: it drops its contexts, its transport and the sweep observers.
final class LoopContext: @unchecked Sendable {
    // @unchecked Sendable: `traffic` and the last event are touched only on `loop.queue`; the rest is immutable.
    let loop: EventLoop
    let server: HubServer
    let traffic = LoopTraffic()
    // protected by loop.queue: the last event `sharedEventFrame(for:)` saw (kept, so that its storage is not reused
    // while compared by address), and its frame once a second connection sent it
    private var lastEvent: [UInt8] = []
    private var lastEventFrame: SharedBytes?

    init(loop: EventLoop, server: HubServer) {
        self.loop = loop
        self.server = server
    }

    /// An event posted to many connections at once (one encoded array: a community notification to 2,000 members)
    /// goes out as one uncompressed frame shared by this loop's recipients from the second one on, instead of a frame
    /// (and, with permessage-deflate, a compression) per connection: the 2,000 compressions of one notification
    /// held the loop for tens of milliseconds and put every other request of the budget run behind them (issue 17).
    /// RFC 7692 lets a compressing connection carry an uncompressed message. Nil for the first sender of an event (it
    /// is sent as any other, compressed where negotiated): a one-off event is never shared. On the loop.
    func sharedEventFrame(for bytes: [UInt8]) -> SharedBytes? {
        loop.assertOnLoop()
        let same =
            bytes.count == lastEvent.count && !bytes.isEmpty
            && bytes.withUnsafeBufferPointer { a in
                lastEvent.withUnsafeBufferPointer { b in a.baseAddress == b.baseAddress }
            }
        guard same else {
            lastEvent = bytes
            lastEventFrame = nil
            return nil
        }
        if let lastEventFrame { return lastEventFrame }
        let frame = SharedBytes(WebSocketFrameEncoder.encode(opcode: .text, payload: bytes))
        lastEventFrame = frame
        return frame
    }
}
