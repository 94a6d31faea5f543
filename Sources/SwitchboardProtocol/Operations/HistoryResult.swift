//===----------------------------------------------------------------------===//
//
// This source file is part of the Switchboard open source project
//
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//

/// A page of `messages.history`, newest first.
public struct HistoryResult: Codable, Sendable, Equatable {
    public var messages: [ChatMessage]
    /// Whether older messages exist (ask again with `before` = the oldest seq of this page).
    public var hasMore: Bool
    public init(messages: [ChatMessage], hasMore: Bool) {
        self.messages = messages
        self.hasMore = hasMore
    }
}
