//===----------------------------------------------------------------------===//
//
// This source file is part of the Switchboard open source project
//
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//

import Foundation

/// What `timeline` shows.
public enum TimelineKind: Sendable, Equatable {
    case home
    case user(String)
    case mentions
    case likes(String?)
    case hashtag(String)

    /// `home`, `@handle` (or a user id), `mentions`, `likes [@h]`, `#tag`.
    public static func parse(_ words: [String]) throws(CLIError) -> TimelineKind {
        guard let first = words.first else { return .home }
        switch first {
        case "home" where words.count == 1: return .home
        case "mentions" where words.count == 1: return .mentions
        case "likes" where words.count <= 2: return .likes(words.count == 2 ? words[1] : nil)
        default:
            guard words.count == 1 else {
                throw CLIError("timeline takes one of home, @handle, mentions, likes [@handle], #tag", exitCode: .usage)
            }
            if first.hasPrefix("#"), first.count > 1 { return .hashtag(String(first.dropFirst())) }
            if first.hasPrefix("@") || Int64(first) != nil { return .user(first) }
            throw CLIError(
                "timeline takes one of home, @handle, mentions, likes [@handle], #tag (not \(first))", exitCode: .usage)
        }
    }
}
