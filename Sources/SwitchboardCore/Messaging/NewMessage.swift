//===----------------------------------------------------------------------===//
//
// This source file is part of the Switchboard open source project
//
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//

public import SwitchboardProtocol

/// A message about to be inserted (its seq is assigned by the writer).
public struct NewMessage: Sendable {
    public var conversationId: Int64
    public var seq: Int64
    public var senderId: Int64?
    public var kind: ChatMessage.Kind
    public var body: String?
    public var clientId: String?
    /// The voice clip of a voice message.
    public var voiceId: Int64?
    public init(
        conversationId: Int64, seq: Int64, senderId: Int64?, kind: ChatMessage.Kind, body: String?, clientId: String?,
        voiceId: Int64? = nil
    ) {
        self.conversationId = conversationId
        self.seq = seq
        self.senderId = senderId
        self.kind = kind
        self.body = body
        self.clientId = clientId
        self.voiceId = voiceId
    }
}
