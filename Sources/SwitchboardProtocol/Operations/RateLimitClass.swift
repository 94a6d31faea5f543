//===----------------------------------------------------------------------===//
//
// This source file is part of the Switchboard open source project
//
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//

/// The rate limit class of an op (`docs/protocol.md`, Limits).
public enum RateLimitClass: String, Sendable, Equatable {
    /// Only the per-connection limits (the ordered lane's cap, frames per second).
    case none
    /// Registrations per address.
    case registration
    /// Failed logins per phone and per address.
    case login
    /// Codes sent per phone number and per address, wrong codes per code (phone verification).
    case codes
    /// Contact look-ups per account and address.
    case discovery
    /// Messages sent per user.
    case messages
    /// Typing updates per user.
    case typing
    /// TURN credentials per user.
    case turn
    /// Reactions set per user.
    case reactions
    /// Reports made per user (`report.create`).
    case reports
    /// Posts, replies per user (`post.create`).
    case posts
    /// Likes and unlikes per user.
    case likes
    /// Reposts and unreposts per user.
    case reposts
}
