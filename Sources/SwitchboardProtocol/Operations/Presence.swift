//===----------------------------------------------------------------------===//
//
// This source file is part of the Switchboard open source project
//
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//

// Presence and typing (docs/protocol.md, "Presence and typing").

extension Ops {
    /// The presence and typing ops.
    public static let presence: [any ProtocolOperation.Type] = [PresenceSet.self, Typing.self]

    /// `presence.set {status}` -> `{}`: `online` or `away`.
    public enum PresenceSet: ProtocolOperation {
        public static let name = "presence.set"
        public static let stateChanging = true
        public static let idempotent = true
        public struct Parameters: Codable, Sendable, Equatable {
            public var status: String
            public init(status: String) { self.status = status }
        }
        public typealias Result = Empty
    }

    /// `typing {conversation_id, activity?, active?}` -> `{}`.
    public enum Typing: ProtocolOperation {
        public static let name = "typing"
        public static let stateChanging = true
        public static let idempotent = false
        public static let rateLimit = RateLimitClass.typing
        public struct Parameters: Codable, Sendable, Equatable {
            public var conversationId: Int64
            /// `typing` (default) or `recording`.
            public var activity: String?
            /// False stops (default true).
            public var active: Bool?
            public init(conversationId: Int64, activity: String? = nil, active: Bool? = nil) {
                self.conversationId = conversationId
                self.activity = activity
                self.active = active
            }
        }
        public typealias Result = Empty
    }
}
