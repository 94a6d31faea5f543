//===----------------------------------------------------------------------===//
//
// This source file is part of the Switchboard open source project
//
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//

/// A stream a connection subscribes to.
enum LiveStream: Hashable, Sendable {
    case home
    case user(Int64)
    /// The post id as subscribed (the index uses its thread's root).
    case thread(Int64)
    case notifications

    init?(_ name: String) {
        if name == "home" {
            self = .home
        } else if name == "notifications" {
            self = .notifications
        } else if name.hasPrefix("user:"), let id = Int64(name.dropFirst(5)), id > 0 {
            self = .user(id)
        } else if name.hasPrefix("thread:"), let id = Int64(name.dropFirst(7)), id > 0 {
            self = .thread(id)
        } else {
            return nil
        }
    }

    var name: String {
        switch self {
        case .home: "home"
        case .notifications: "notifications"
        case .user(let id): "user:\(id)"
        case .thread(let id): "thread:\(id)"
        }
    }
}
