//===----------------------------------------------------------------------===//
//
// This source file is part of the Switchboard open source project
//
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//

import SwitchboardTransport
import SwitchboardWebSocket

/// One live event for one connection, encoded once for all its recipients: the connection drops a post it was
/// just given by a resume, and conflates counts per post while backed up (`ProtocolApplication.receiveSocial`).
final class SocialDelivery: Sendable {
    enum Kind: Sendable { case post, deleted, counts, photos, other }
    let kind: Kind
    let postId: Int64
    let seq: Int64
    let bytes: [UInt8]
    /// The event's uncompressed WebSocket frame, built once and written as is to every recipient
    /// (`HTTPSession.sendFanout`).
    let frame: SharedBytes
    init(kind: Kind, postId: Int64 = 0, seq: Int64 = 0, bytes: [UInt8]) {
        self.kind = kind
        self.postId = postId
        self.seq = seq
        self.bytes = bytes
        frame = SharedBytes(WebSocketFrameEncoder.encode(opcode: .text, payload: bytes))
    }
}
