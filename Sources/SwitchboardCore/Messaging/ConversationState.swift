//===----------------------------------------------------------------------===//
//
// This source file is part of the Switchboard open source project
//
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//

/// What the message writer keeps in memory per conversation: kind, members, name and the last sequence number,
/// with the `version` of the members and name they were read at. A cached state is a hint: every batch locks
/// the conversation's row and takes `lastSeq` from it, and reloads the state when the row's version differs
/// (another process, or another writer, changed the members or the name); see `MessageBatch`.
public struct ConversationState: Sendable, Equatable {
    public var id: Int64
    public var isGroup: Bool
    public var members: [Int64: MemberRange]
    public var lastSeq: Int64
    public var name: String?
    /// `conversations.version`: bumped by every change of `members` or `name` (never by a plain message).
    public var version: Int64

    public init(
        id: Int64, isGroup: Bool, members: [Int64: MemberRange], lastSeq: Int64, name: String?, version: Int64 = 0
    ) {
        self.id = id
        self.isGroup = isGroup
        self.members = members
        self.lastSeq = lastSeq
        self.name = name
        self.version = version
    }

    /// Users who are members now.
    public var activeMembers: [Int64] { members.filter { $0.value.isActive }.map(\.key) }

    public func isActiveMember(_ userId: Int64) -> Bool { members[userId]?.isActive == true }
}
