//===----------------------------------------------------------------------===//
//
// This source file is part of the Switchboard open source project
//
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//

import Foundation
public import SwitchboardProtocol

/// The rules of a handle (`@name`): 3-30 of `[A-Za-z0-9_]`, stored as typed, unique case-insensitively
/// (`lower(handle)`), reserved words refused (docs/protocol.md, "Profiles, handles and follows").
public enum Handle {
    /// Why a handle cannot be taken (the `reason` of `handle.check`).
    public enum Problem: String, Sendable {
        case invalid, reserved, taken
    }

    /// Words no one may take as a handle (compared lowercased).
    public static let reserved: Set<String> = [
        "admin", "administrator", "root", "system", "switchboard", "support", "help", "api", "www", "moderator", "mod",
        "settings", "about", "login", "logout", "register", "everyone", "here", "all", "null", "undefined", "me", "home",
        "notifications", "explore", "search", "trends", "live",
    ]

    /// Whether `s` has the shape of a handle: 3-30 ASCII letters, digits or underscores.
    public static func isWellFormed(_ s: String) -> Bool {
        let bytes = Array(s.utf8)
        guard (3...30).contains(bytes.count) else { return false }
        return bytes.allSatisfy { b in
            (b >= 0x30 && b <= 0x39) || (b >= 0x41 && b <= 0x5A) || (b >= 0x61 && b <= 0x7A) || b == 0x5F
        }
    }

    /// nil when `s` may be chosen (taken or not is the store's question), else why not.
    public static func validate(_ s: String) -> Problem? {
        guard isWellFormed(s) else { return .invalid }
        return reserved.contains(s.lowercased()) ? .reserved : nil
    }
}

/// The social fields of `profile.update`: nil leaves a field as it is.
public struct SocialProfileChange: Sendable, Equatable {
    public var bio: String?
    public var protected: Bool?
    public var dmPolicy: String?

    public init(bio: String? = nil, protected: Bool? = nil, dmPolicy: String? = nil) {
        self.bio = bio
        self.protected = protected
        self.dmPolicy = dmPolicy
    }

    public var isEmpty: Bool { bio == nil && protected == nil && dmPolicy == nil }

    /// The bio: at most 160 characters (640 UTF-8 bytes), line breaks allowed, no other control characters; "" clears.
    public static let bioRule = TextRule(field: "bio", maxCharacters: 160, maxBytes: 640, controls: .lineBreaksAndTabs, allowsBlank: true)
    /// The DM policies (`users.dm_policy`).
    public static let dmPolicies: Set<String> = ["friends", "mutuals", "anyone"]

    /// Trims the bio; `bad_request` for a bio over the rule or an unknown policy.
    public mutating func validate() throws(ServiceError) {
        if let raw = bio {
            guard raw.utf8.count <= Self.bioRule.maxBytes * 4 else { throw ServiceError(.badRequest, "bio is longer than 160 characters") }
            let trimmed = raw.trimmingCharacters(in: .whitespacesAndNewlines)
            if !trimmed.isEmpty, let problem = StoredText.problem(trimmed, Self.bioRule) { throw ServiceError(.badRequest, problem) }
            bio = trimmed
        }
        if let dmPolicy, !Self.dmPolicies.contains(dmPolicy) {
            throw ServiceError(.badRequest, "dm_policy must be friends, mutuals or anyone")
        }
    }
}
