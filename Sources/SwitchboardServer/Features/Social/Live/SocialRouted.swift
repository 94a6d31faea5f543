//===----------------------------------------------------------------------===//
//
// This source file is part of the Switchboard open source project
//
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//

import SwitchboardCore
import SwitchboardDomain
import SwitchboardProtocol

/// A change once resolved (its post or counts read, its event encoded once): what every node routes to its own
/// connections, and what crosses the cluster's bus (`ClusterWire.social`, one message per resolved batch).
enum SocialRouted: Sendable, Equatable {
    /// `post.new`.
    case post(LivePostRoute, event: [UInt8])
    /// `post.deleted`.
    case deleted(postId: Int64, seq: Int64, authorId: Int64, threadRoot: Int64?, event: [UInt8])
    /// `post.counts` (conflated per post on a backed-up connection); `threadKey` is the thread's root (the post's own
    /// id for a root); `reposters` the authors of its newest reposts (at most `--live-counts-reposters`), whose
    /// followers' home pages show it too.
    case counts(
        postId: Int64, authorId: Int64, authorProtected: Bool, threadKey: Int64, reposters: [Int64] = [],
        event: [UInt8])
    /// `post.photos` (to the audience of `post.counts`, conflated the same way).
    case photos(
        postId: Int64, authorId: Int64, authorProtected: Bool, threadKey: Int64, reposters: [Int64] = [],
        event: [UInt8])
    /// `profile.counts`.
    case profileCounts(userId: Int64, event: [UInt8])
    /// `notification` to the user's connections subscribed to `notifications`.
    case notification(userId: Int64, event: [UInt8])
    /// Index changes.
    case follow(followerId: Int64, followeeId: Int64, active: Bool)
    case block(blockerId: Int64, blockedId: Int64, active: Bool)
    case mute(muterId: Int64, mutedId: Int64, active: Bool)

    // MARK: the bus format

    /// A batch for the bus: `count (u32) | items`, each `tag (1) | fields`; integers little-endian, an optional
    /// integer as `flag (1) | i64`, bytes as `u32 length | bytes`. Decoded defensively (nil when malformed).
    static func encode(_ items: [SocialRouted]) -> [UInt8] {
        var w = ClusterWireWriter()
        w.u32(UInt32(items.count))
        for item in items {
            switch item {
            case .post(let r, let event):
                w.byte(1)
                w.i64(r.postId)
                w.i64(r.seq)
                w.i64(r.authorId)
                w.byte(r.authorProtected ? 1 : 0)
                w.optional(r.threadRoot)
                w.optional(r.replyToUser)
                w.optional(r.originalAuthor)
                w.bytes(event)
            case .deleted(let postId, let seq, let authorId, let threadRoot, let event):
                w.byte(2)
                w.i64(postId)
                w.i64(seq)
                w.i64(authorId)
                w.optional(threadRoot)
                w.bytes(event)
            case .counts(let postId, let authorId, let authorProtected, let threadKey, let reposters, let event),
                .photos(let postId, let authorId, let authorProtected, let threadKey, let reposters, let event):
                // One layout for both (decoded by one case too), told apart by the tag.
                if case .counts = item { w.byte(3) } else { w.byte(9) }
                w.i64(postId)
                w.i64(authorId)
                w.byte(authorProtected ? 1 : 0)
                w.i64(threadKey)
                w.u32(UInt32(reposters.count))
                for r in reposters { w.i64(r) }
                w.bytes(event)
            case .profileCounts(let userId, let event):
                w.byte(4)
                w.i64(userId)
                w.bytes(event)
            case .notification(let userId, let event):
                w.byte(5)
                w.i64(userId)
                w.bytes(event)
            case .follow(let a, let b, let active):
                w.byte(6)
                w.i64(a)
                w.i64(b)
                w.byte(active ? 1 : 0)
            case .block(let a, let b, let active):
                w.byte(7)
                w.i64(a)
                w.i64(b)
                w.byte(active ? 1 : 0)
            case .mute(let a, let b, let active):
                w.byte(8)
                w.i64(a)
                w.i64(b)
                w.byte(active ? 1 : 0)
            }
        }
        return w.out
    }

    static func decode(_ bytes: [UInt8]) -> [SocialRouted]? {
        bytes.withUnsafeBufferPointer { decode(reading: ClusterWireReader($0)) }
    }

    private static func decode(reading reader: ClusterWireReader) -> [SocialRouted]? {
        var r = reader
        guard let count = r.u32(), count <= 1 << 16 else { return nil }
        var items: [SocialRouted] = []
        for _ in 0..<count {
            guard let tag = r.byte() else { return nil }
            switch tag {
            case 1:
                guard let id = r.i64(), let seq = r.i64(), let author = r.i64(), let p = r.flag(),
                    let root = r.optional(),
                    let replyTo = r.optional(), let original = r.optional(), let event = r.bytes()
                else { return nil }
                items.append(
                    .post(
                        LivePostRoute(
                            postId: id, seq: seq, authorId: author, authorProtected: p, threadRoot: root,
                            replyToUser: replyTo,
                            originalAuthor: original), event: event))
            case 2:
                guard let id = r.i64(), let seq = r.i64(), let author = r.i64(), let root = r.optional(),
                    let event = r.bytes()
                else { return nil }
                items.append(.deleted(postId: id, seq: seq, authorId: author, threadRoot: root, event: event))
            case 3, 9:
                guard let id = r.i64(), let author = r.i64(), let p = r.flag(), let key = r.i64(),
                    let n = r.u32(), n <= 1 << 16
                else { return nil }
                var reposters: [Int64] = []
                for _ in 0..<n {
                    guard let reposter = r.i64() else { return nil }
                    reposters.append(reposter)
                }
                guard let event = r.bytes() else { return nil }
                items.append(
                    tag == 3
                        ? .counts(
                            postId: id, authorId: author, authorProtected: p, threadKey: key, reposters: reposters,
                            event: event)
                        : .photos(
                            postId: id, authorId: author, authorProtected: p, threadKey: key, reposters: reposters,
                            event: event))
            case 4:
                guard let u = r.i64(), let event = r.bytes() else { return nil }
                items.append(.profileCounts(userId: u, event: event))
            case 5:
                guard let u = r.i64(), let event = r.bytes() else { return nil }
                items.append(.notification(userId: u, event: event))
            case 6, 7, 8:
                guard let a = r.i64(), let b = r.i64(), let active = r.flag() else { return nil }
                items.append(
                    tag == 6
                        ? .follow(followerId: a, followeeId: b, active: active)
                        : tag == 7
                            ? .block(blockerId: a, blockedId: b, active: active)
                            : .mute(muterId: a, mutedId: b, active: active))
            default: return nil
            }
        }
        return r.remaining == 0 ? items : nil
    }
}
