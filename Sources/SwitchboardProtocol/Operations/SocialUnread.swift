//===----------------------------------------------------------------------===//
//
// This source file is part of the Switchboard open source project
//
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//

/// `{unread}`.
public struct SocialUnread: Codable, Sendable, Equatable {
    public var unread: Int64
    public init(unread: Int64) { self.unread = unread }
}
