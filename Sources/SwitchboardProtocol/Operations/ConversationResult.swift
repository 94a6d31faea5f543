//===----------------------------------------------------------------------===//
//
// This source file is part of the Switchboard open source project
//
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//

/// `{conversation}`.
public struct ConversationResult: Codable, Sendable, Equatable {
    public var conversation: ConversationSummary
    public init(conversation: ConversationSummary) { self.conversation = conversation }
}
