//===----------------------------------------------------------------------===//
//
// This source file is part of the Switchboard open source project
//
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//

/// A report as administrators see it.
public struct ModerationReport: Codable, Sendable, Equatable {
    public var reportId: Int64
    /// `open`, `resolved` or `dismissed`.
    public var status: String
    public var targetKind: String
    public var targetId: Int64
    public var reason: String
    public var text: String?
    public var createdAt: String
    /// Absent when the reporter's account was deleted.
    public var reporter: ReportedUser?
    /// The reported user, or the reported message's sender.
    public var targetUser: ReportedUser?
    /// A reported message's conversation and seq.
    public var conversationId: Int64?
    public var seq: Int64?
    /// The reported message's text as it was when reported (`[voice message]` for a voice message).
    public var content: String?
    /// A reported message now: `visible`, `deleted` (by its sender) or `removed` (by moderation).
    public var messageState: String?
    public var closedAt: String?
    public var closedBy: Int64?
    public var note: String?
    public init(
        reportId: Int64, status: String, targetKind: String, targetId: Int64, reason: String, text: String?,
        createdAt: String,
        reporter: ReportedUser?, targetUser: ReportedUser?, conversationId: Int64?, seq: Int64?, content: String?,
        messageState: String?,
        closedAt: String?, closedBy: Int64?, note: String?
    ) {
        self.reportId = reportId
        self.status = status
        self.targetKind = targetKind
        self.targetId = targetId
        self.reason = reason
        self.text = text
        self.createdAt = createdAt
        self.reporter = reporter
        self.targetUser = targetUser
        self.conversationId = conversationId
        self.seq = seq
        self.content = content
        self.messageState = messageState
        self.closedAt = closedAt
        self.closedBy = closedBy
        self.note = note
    }
}
