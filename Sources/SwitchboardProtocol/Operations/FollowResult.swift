//===----------------------------------------------------------------------===//
//
// This source file is part of the Switchboard open source project
//
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//

/// Result of `follow`: `{state ("active"|"pending"), profile}`.
public struct FollowResult: Codable, Sendable, Equatable {
    public var state: String
    public var profile: UserProfile
    public init(state: String, profile: UserProfile) {
        self.state = state
        self.profile = profile
    }
}
