//===----------------------------------------------------------------------===//
//
// This source file is part of the Switchboard open source project
//
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//

/// `{conversations}`.
public struct ConversationsResult: Codable, Sendable, Equatable {
    public var conversations: [ConversationSummary]
    public init(conversations: [ConversationSummary]) { self.conversations = conversations }
}
