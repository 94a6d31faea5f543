//===----------------------------------------------------------------------===//
//
// This source file is part of the Switchboard open source project
//
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//

/// One member's progress through a course (`courses.progress`).
public struct MemberProgress: Codable, Sendable, Equatable {
    public var user: UserSummary
    /// How many of the course's lessons the member completed.
    public var completed: Int
    public init(user: UserSummary, completed: Int) {
        self.user = user
        self.completed = completed
    }
}
