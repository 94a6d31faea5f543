//===----------------------------------------------------------------------===//
//
// This source file is part of the Switchboard open source project
//
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//

/// The reply to `profile.avatar.set`/`profile.avatar.remove`: `{profile}` (my own profile, with `avatar` or without).
public struct AvatarResult: Codable, Sendable, Equatable {
    public var profile: UserProfile
    public init(profile: UserProfile) { self.profile = profile }
}
