//===----------------------------------------------------------------------===//
//
// This source file is part of the Switchboard open source project
//
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//

import SwitchboardDomain

/// Where a page of `communities.list` or `communities.members` starts: after the row with this sort key. Opaque on
/// the wire (`encoded`).
public struct CommunityCursor: Sendable, Equatable {
    /// The part: 0 joined (core for members), 1 the others.
    public var part: Int
    /// The row's name, lowered (what the collation compares).
    public var key: String
    public var id: Int64

    public init(part: Int, key: String, id: Int64) {
        self.part = part
        self.key = key
        self.id = id
    }

    /// `part.id.key` in base64url (the key last: it may hold any character).
    public var encoded: String {
        SessionToken.base64url(Array("\(part).\(id).\(key)".utf8))
    }

    /// The cursor `encoded` made, nil when it is not one.
    public init?(encoded: String) {
        guard encoded.utf8.count <= 2048, let bytes = SessionToken.decodeBase64url(encoded),
            let text = String(validating: bytes, as: UTF8.self)
        else { return nil }
        let parts = text.split(separator: ".", maxSplits: 2, omittingEmptySubsequences: false)
        guard parts.count == 3, let part = Int(parts[0]), part == 0 || part == 1, let id = Int64(parts[1]) else {
            return nil
        }
        self.init(part: part, key: String(parts[2]), id: id)
    }
}
