//===----------------------------------------------------------------------===//
//
// This source file is part of the Switchboard open source project
//
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//

public import SwitchboardProtocol

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
