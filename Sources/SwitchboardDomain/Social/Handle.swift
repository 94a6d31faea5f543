//===----------------------------------------------------------------------===//
//
// This source file is part of the Switchboard open source project
//
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//

import Foundation

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
