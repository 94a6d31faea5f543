//===----------------------------------------------------------------------===//
//
// This source file is part of the Switchboard open source project
//
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//

/// Result of `profile.get` and `profile.update`: `{profile}`.
public struct ProfileResult: Codable, Sendable, Equatable {
    /// The profile asked for or updated.
    public var profile: UserProfile
    public init(profile: UserProfile) { self.profile = profile }
}
