//===----------------------------------------------------------------------===//
//
// This source file is part of the Switchboard open source project
//
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//

import Foundation

/// How a command-line argument names someone or something.
public enum TargetQuery: Sendable, Equatable {
    /// A phone number (`+15551234567`, or 7 or more digits with spaces, dashes, dots or parentheses).
    case phone(String)
    /// A number of fewer than 7 digits, or `#N`: an id (conversation, request, call).
    case id(Int64)
    /// Anything else: a display name or group name (case-insensitive).
    case name(String)

    /// Classifies `text` (trimmed).
    public static func classify(_ text: String) -> TargetQuery {
        let t = text.trimmingCharacters(in: .whitespaces)
        if t.hasPrefix("#"), let n = Int64(t.dropFirst()) { return .id(n) }
        let digits = t.filter(\.isNumber).count
        let phoneCharacters = Set("+0123456789 -.()")
        if !t.isEmpty, t.allSatisfy({ phoneCharacters.contains($0) }), digits > 0 {
            if t.hasPrefix("+") || digits >= 7 { return .phone(t) }
            if let n = Int64(t) { return .id(n) }
        }
        return .name(t)
    }
}
