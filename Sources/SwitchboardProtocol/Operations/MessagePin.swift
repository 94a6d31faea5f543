//===----------------------------------------------------------------------===//
//
// This source file is part of the Switchboard open source project
//
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//

/// A pinned message: the message as stored, who pinned it (null once that account is deleted) and when.
public struct MessagePin: Codable, Sendable, Equatable {
    /// The message (without reactions).
    public var message: ChatMessage
    /// The member who pinned it; nil when that account was deleted.
    public var pinnedBy: Int64?
    /// When it was pinned (ISO 8601 UTC with milliseconds).
    public var pinnedAt: String
    public init(message: ChatMessage, pinnedBy: Int64?, pinnedAt: String) {
        self.message = message
        self.pinnedBy = pinnedBy
        self.pinnedAt = pinnedAt
    }

    enum CodingKeys: String, CodingKey {
        case message, pinnedBy, pinnedAt
    }

    /// `pinned_by` is always sent: null once the account that pinned is deleted.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(message, forKey: .message)
        try container.encode(pinnedBy, forKey: .pinnedBy)
        try container.encode(pinnedAt, forKey: .pinnedAt)
    }
}
