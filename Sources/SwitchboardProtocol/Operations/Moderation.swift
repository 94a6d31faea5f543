//===----------------------------------------------------------------------===//
//
// This source file is part of the Switchboard open source project
//
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//

// Reports and moderation (docs/protocol.md, "Moderation"; docs/moderation.md): `report.create` for everyone,
// `admin.*` for administrators only (everyone else: `forbidden`).

extension Ops {
    /// The moderation ops.
    public static let moderation: [any ProtocolOperation.Type] = [
        ReportCreate.self, AdminReports.self, AdminRemove.self, AdminSuspend.self, AdminReinstate.self,
        AdminResolve.self,
        AdminAudit.self,
    ]

    /// `report.create {target_kind, target_id, reason, text?}` -> `{report_id}`: reports a message I can see or a
    /// user I share a conversation with or am a friend of. Reporting the same target again while my earlier
    /// report is open answers that report.
    public enum ReportCreate: ProtocolOperation {
        public static let name = "report.create"
        public static let stringParameters: [String: StringParameter] = ["text": .text]
        public static let stateChanging = true
        public static let idempotent = true
        public static let rateLimit = RateLimitClass.reports
        public struct Parameters: Codable, Sendable, Equatable {
            /// `message` or `user` (`post` is reserved for posts, which do not exist yet).
            public var targetKind: String
            /// The message's or the user's id.
            public var targetId: Int64
            /// One of `ModerationReason.all`.
            public var reason: String
            /// Optional words of the reporter (at most 1000 characters).
            public var text: String?
            public init(targetKind: String, targetId: Int64, reason: String, text: String? = nil) {
                self.targetKind = targetKind
                self.targetId = targetId
                self.reason = reason
                self.text = text
            }
        }
        public struct Result: Codable, Sendable, Equatable {
            public var reportId: Int64
            public init(reportId: Int64) { self.reportId = reportId }
        }
    }

    /// `admin.reports {status?, before?, limit?}` -> `{reports, next_before?}`: reports newest first; `status`
    /// `open` (default) or `closed` (resolved and dismissed).
    public enum AdminReports: ProtocolOperation {
        public static let name = "admin.reports"
        public static let administratorsOnly = true
        public static let stateChanging = false
        public static let idempotent = true
        public struct Parameters: Codable, Sendable, Equatable {
            public var status: String?
            public var before: Int64?
            public var limit: Int?
            public init(status: String? = nil, before: Int64? = nil, limit: Int? = nil) {
                self.status = status
                self.before = before
                self.limit = limit
            }
        }
        /// `{reports, next_before?}`: the `before` of the next page, absent on the last page.
        public typealias Result = Page<ModerationReport>
    }

    /// `admin.remove {message_id, reason?, report_id?}` -> `{message}`: removes a message; its tombstone (the
    /// system message `message_removed`) reaches every member like a deletion. `report_id` resolves that report.
    public enum AdminRemove: ProtocolOperation {
        public static let name = "admin.remove"
        public static let administratorsOnly = true
        public static let stateChanging = true
        public static let idempotent = false
        public struct Parameters: Codable, Sendable, Equatable {
            public var messageId: Int64
            public var reason: String?
            public var reportId: Int64?
            public init(messageId: Int64, reason: String? = nil, reportId: Int64? = nil) {
                self.messageId = messageId
                self.reason = reason
                self.reportId = reportId
            }
        }
        public typealias Result = MessageResult
    }

    /// `admin.suspend {user_id, reason?, report_id?}` -> `{user_id, suspended: true}`: the account's connections
    /// get `account.suspended` and close with 4004 on every node; login and authenticate answer
    /// `account_suspended` until it is reinstated.
    public enum AdminSuspend: ProtocolOperation {
        public static let name = "admin.suspend"
        public static let administratorsOnly = true
        public static let stateChanging = true
        public static let idempotent = true
        public typealias Parameters = ModerationUserParameters
        public typealias Result = ModerationUserResult
    }

    /// `admin.reinstate {user_id, reason?}` -> `{user_id, suspended: false}`.
    public enum AdminReinstate: ProtocolOperation {
        public static let name = "admin.reinstate"
        public static let administratorsOnly = true
        public static let stateChanging = true
        public static let idempotent = true
        public typealias Parameters = ModerationUserParameters
        public typealias Result = ModerationUserResult
    }

    /// `admin.resolve {report_id, status, note?}` -> `{report}`: closes a report as `resolved` or `dismissed`.
    public enum AdminResolve: ProtocolOperation {
        public static let name = "admin.resolve"
        public static let administratorsOnly = true
        public static let stateChanging = true
        public static let idempotent = true
        public struct Parameters: Codable, Sendable, Equatable {
            public var reportId: Int64
            /// `resolved` or `dismissed`.
            public var status: String
            public var note: String?
            public init(reportId: Int64, status: String, note: String? = nil) {
                self.reportId = reportId
                self.status = status
                self.note = note
            }
        }
        public struct Result: Codable, Sendable, Equatable {
            public var report: ModerationReport
            public init(report: ModerationReport) { self.report = report }
        }
    }

    /// `admin.audit {before?, limit?}` -> `{entries, next_before?}`: the moderation audit log, newest first.
    public enum AdminAudit: ProtocolOperation {
        public static let name = "admin.audit"
        public static let administratorsOnly = true
        public static let stateChanging = false
        public static let idempotent = true
        public struct Parameters: Codable, Sendable, Equatable {
            public var before: Int64?
            public var limit: Int?
            public init(before: Int64? = nil, limit: Int? = nil) {
                self.before = before
                self.limit = limit
            }
        }
        /// `{entries, next_before?}`: the `before` of the next page, absent on the last page.
        public typealias Result = Page<AuditEntry>
    }
}
