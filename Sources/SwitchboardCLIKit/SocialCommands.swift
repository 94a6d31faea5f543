//===----------------------------------------------------------------------===//
//
// This source file is part of the Switchboard open source project
//
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//

import Foundation
public import SwitchboardClient
import SwitchboardProtocol

// handle, profile, post, reply, timeline, thread, follow, unfollow, requests, followers, following, like, repost,
// delete-post, notifications, block, unblock, mute, unmute (docs/cli.md, "Social"). A user is `@handle` or a user
// id; a post is its id (`#12` or `12`).

extension CLIContext {
    // MARK: formatting

    static func socialUserFields(_ u: SocialUser) -> [String: JSONValue] {
        [
            "user_id": .int(u.userId), "display_name": .string(u.displayName),
            "handle": u.handle.map(JSONValue.string) ?? .null,
            "protected": .bool(u.protected),
        ]
    }

    static func socialUserLine(_ u: SocialUser) -> String {
        (u.handle.map { "@\($0) (\(u.displayName))" } ?? u.displayName) + "  #\(u.userId)" + (u.protected ? "  🔒" : "")
    }

    /// One line of a post: `#ID @author: text  ♥ likes ↻ reposts ↩ replies  time`; a repost shows its original.
    static func postLine(_ p: SocialPost) -> String {
        let shown = p.shown
        var s = "#\(p.postId) "
        if p.repostOf != nil { s += "\(p.author.label) reposted #\(shown.postId) " }
        if let to = shown.replyToUser, let parent = shown.replyTo { s += "↩ \(to.label) #\(parent) " }
        s += "\(shown.author.label): " + shown.text.replacingOccurrences(of: "\n", with: " ⏎ ")
        if let v = shown.voiceClipId { s += " [voice clip #\(v)]" }
        if !shown.photos.isEmpty {
            s +=
                " [\(shown.photos.count) photo\(shown.photos.count == 1 ? "" : "s"): "
                + shown.photos.map(photoLabel).joined(separator: ", ") + "]"
        }
        s +=
            """
              ♥ \(shown.likeCount)\(shown.liked ? "✓" : "") ↻ \(shown.repostCount)\(shown.reposted ? "✓" : "") ↩ \
            \(shown.replyCount)
            """
        if !p.createdAt.isEmpty { s += "  " + shortTime(p.createdAt) }
        return s
    }

    /// `2026-11-23T01:02:03.456Z` → `2026-11-23 01:02`.
    static func shortTime(_ wire: String) -> String {
        guard wire.count >= 16 else { return wire }
        return String(wire.prefix(10)) + " " + String(wire.dropFirst(11).prefix(5))
    }

    /// A thread's ancestor: its post's line, or `#ID (deleted or not visible)`.
    static func postLine(_ a: ThreadAncestor) -> String {
        switch a {
        case .post(let p): postLine(p)
        case .gone(let id): "#\(id) (deleted or not visible)"
        }
    }

    static func postRecord(_ type: String, _ p: SocialPost, style: OutputStyle = .plain) -> OutputRecord {
        OutputRecord(type, ["post": SocialAPI.jsonValue(p)], text: postLine(p), style: style)
    }

    /// `post.photos`: a post's photos after one was deleted.
    static func photosRecord(postId: Int64, photos: [Photo]) -> OutputRecord {
        OutputRecord(
            "post.photos", ["post_id": .int(postId), "photos": SocialAPI.jsonValue(photos)],
            text: "post #\(postId) now has \(photos.count) photo\(photos.count == 1 ? "" : "s")", style: .dim)
    }

    /// A thread's ancestor: the post, or `{post_id, deleted: true}`.
    static func postRecord(_ type: String, _ a: ThreadAncestor, style: OutputStyle = .plain) -> OutputRecord {
        OutputRecord(type, ["post": SocialAPI.jsonValue(a)], text: postLine(a), style: style)
    }

    static func profileRecord(_ p: UserProfile, type: String = "profile") -> OutputRecord {
        var s = p.handle.map { "@\($0) (\(p.displayName))" } ?? "\(p.displayName) (no handle)"
        s += "  #\(p.userId)"
        if p.protected == true { s += "  🔒 protected" }
        if let st = p.stats {
            s +=
                """
                  \(st.posts) post\(st.posts == 1 ? "" : "s"), \(st.following) following, \(st.followers) \
                follower\(st.followers == 1 ? "" : "s")
                """
        }
        if let r = p.relationship {
            var bits: [String] = []
            if r.following == "active" { bits.append("you follow") }
            if r.following == "pending" { bits.append("requested") }
            if r.followedBy { bits.append("follows you") }
            if r.friend { bits.append("friend") }
            if r.blocking { bits.append("blocked") }
            if r.muting { bits.append("muted") }
            if !bits.isEmpty { s += "  [" + bits.joined(separator: ", ") + "]" }
        }
        if let d = p.dmPolicy { s += "  DMs: \(d)" }
        if let bio = p.bio, !bio.isEmpty { s += "  — " + bio.replacingOccurrences(of: "\n", with: " ") }
        return OutputRecord(
            type, ["profile": SocialAPI.jsonValue(p)], text: s, style: type == "profile" ? .plain : .success)
    }

    static func postId(_ text: String) throws(CLIError) -> Int64 { try id(text, what: "POST_ID") }

    /// The user id of `@handle`, `handle` or a user id.
    func socialUserId(_ target: String, _ session: AuthenticatedSession) async throws(CLIError) -> Int64 {
        if let id = Int64(target.hasPrefix("#") ? String(target.dropFirst()) : target), id > 0 { return id }
        let handle = target.hasPrefix("@") ? String(target.dropFirst()) : target
        guard !handle.isEmpty else { throw CLIError("a user is @handle or a user id", exitCode: .usage) }
        return try await ask(session, "finding @\(handle)") { () async throws(SwitchboardClientError) in
            try await session.client.socialProfile(handle: handle)
        }.userId
    }

    // MARK: handle and profile

    /// `handle NAME`: chooses or changes your handle.
    public func setHandle(_ name: String) async throws(CLIError) {
        let handle = name.hasPrefix("@") ? String(name.dropFirst()) : name
        try await withSession { session throws(CLIError) in
            let p = try await ask(session, "setting the handle") { () async throws(SwitchboardClientError) in
                try await session.client.setHandle(handle)
            }
            var r = Self.profileRecord(p, type: "handle.set")
            r.text = "your handle is @\(p.handle ?? handle)"
            printer.emit(r)
        }
    }

    /// `handle --check NAME`.
    public func checkHandle(_ name: String) async throws(CLIError) {
        let handle = name.hasPrefix("@") ? String(name.dropFirst()) : name
        try await withSession { session throws(CLIError) in
            let c = try await ask(session, "checking the handle") { () async throws(SwitchboardClientError) in
                try await session.client.checkHandle(handle)
            }
            printer.emit(
                OutputRecord(
                    "handle.check",
                    [
                        "handle": .string(c.handle), "available": .bool(c.available),
                        "reason": c.reason.map(JSONValue.string) ?? .null,
                    ],
                    text: c.available
                        ? "@\(c.handle) is available" : "@\(c.handle) is not available (\(c.reason ?? "?"))",
                    style: c.available ? .success : .warning))
        }
    }

    /// `profile [@handle|ID]`: a profile with stats and your relationship (default: yours).
    public func showSocialProfile(_ target: String?) async throws(CLIError) {
        try await withSession { session throws(CLIError) in
            let p: UserProfile
            if let target, Int64(target.hasPrefix("#") ? String(target.dropFirst()) : target) == nil {
                let handle = target.hasPrefix("@") ? String(target.dropFirst()) : target
                p = try await ask(session, "reading the profile") { () async throws(SwitchboardClientError) in
                    try await session.client.socialProfile(handle: handle)
                }
            } else {
                let id = try target.map { t throws(CLIError) in try Self.id(t, what: "a user id") } ?? session.me.userId
                p = try await ask(session, "reading the profile") { () async throws(SwitchboardClientError) in
                    try await session.client.socialProfile(userId: id)
                }
            }
            printer.emit(Self.profileRecord(p))
        }
    }

    /// `profile set --bio/--protected/--public/--dm-policy`: the social fields of your profile.
    public func setSocialProfile(bio: String?, protected: Bool?, dmPolicy: String?) async throws(CLIError) {
        try await withSession { session throws(CLIError) in
            let p = try await ask(session, "saving the profile") { () async throws(SwitchboardClientError) in
                try await session.client.updateSocialProfile(bio: bio, protected: protected, dmPolicy: dmPolicy)
            }
            var r = Self.profileRecord(p, type: "profile")
            r.text = "profile saved: " + r.text
            r.style = .success
            printer.emit(r)
        }
    }

    // MARK: posts

    /// `post TEXT [--voice FILE] [--photo FILE]...` and `reply POST_ID TEXT`.
    public func publishPost(_ text: String?, replyTo: String?, voiceFile: String?, photoFiles: [String] = [])
        async throws(CLIError)
    {
        let parent = try replyTo.map { t throws(CLIError) in try Self.postId(t) }
        var audio: [UInt8]?
        if let voiceFile {
            guard let data = FileManager.default.contents(atPath: voiceFile) else {
                throw CLIError("cannot read \(voiceFile)", exitCode: .localFile)
            }
            audio = Array(data)
        }
        guard photoFiles.count <= Self.maxPostPhotos else {
            throw CLIError(
                "a post has at most \(Self.maxPostPhotos) photos (not \(photoFiles.count))", exitCode: .usage)
        }
        let photos = try Self.readPhotoFiles(photoFiles)
        guard text.map({ !$0.isEmpty }) ?? false || audio != nil || !photos.isEmpty else {
            throw CLIError("nothing to post: give TEXT, --voice FILE or --photo FILE", exitCode: .usage)
        }
        try await withSession { session throws(CLIError) in
            var clipId: Int64?
            if let audio {
                clipId = try await ask(session, "uploading the voice clip") { () async throws(SwitchboardClientError) in
                    try await session.client.uploadVoice(audio)
                }.voiceId
            }
            let photoIds = try await uploadPhotos(photos, session)
            let clip = clipId
            let clientId = "cli-" + UUID().uuidString.lowercased()
            let p = try await ask(session, parent == nil ? "posting" : "replying") {
                () async throws(SwitchboardClientError) in
                try await session.client.publishPost(
                    text, replyTo: parent, voiceClipId: clip, clientId: clientId, photoIds: photoIds)
            }
            var r = Self.postRecord(parent == nil ? "post.created" : "reply.created", p, style: .success)
            r.text = (parent == nil ? "posted " : "replied ") + r.text
            printer.emit(r)
        }
    }

    /// `delete-post POST_ID`.
    public func deleteSocialPost(_ target: String) async throws(CLIError) {
        let id = try Self.postId(target)
        try await withSession { session throws(CLIError) in
            try await ask(session, "deleting the post") { () async throws(SwitchboardClientError) in
                try await session.client.deletePost(id)
            }
            printer.emit(
                OutputRecord("post.deleted", ["post_id": .int(id)], text: "deleted post #\(id)", style: .success))
        }
    }

    /// `like POST_ID [--undo]`.
    public func likePost(_ target: String, undo: Bool) async throws(CLIError) {
        let id = try Self.postId(target)
        try await withSession { session throws(CLIError) in
            let r = try await ask(session, undo ? "unliking" : "liking") { () async throws(SwitchboardClientError) in
                if undo { try await session.client.unlike(id) } else { try await session.client.like(id) }
            }
            printer.emit(
                OutputRecord(
                    undo ? "post.unliked" : "post.liked",
                    ["post_id": .int(r.postId), "like_count": .int(r.likeCount), "liked": .bool(r.liked)],
                    text: "\(r.liked ? "liked" : "not liking") post #\(r.postId)  ♥ \(r.likeCount)", style: .success))
        }
    }

    /// `repost POST_ID [--undo]`.
    public func repostPost(_ target: String, undo: Bool) async throws(CLIError) {
        let id = try Self.postId(target)
        try await withSession { session throws(CLIError) in
            if undo {
                try await ask(session, "undoing the repost") { () async throws(SwitchboardClientError) in
                    try await session.client.unrepost(id)
                }
                printer.emit(
                    OutputRecord(
                        "post.unreposted", ["post_id": .int(id)], text: "repost of #\(id) undone", style: .success))
                return
            }
            let p = try await ask(session, "reposting") { () async throws(SwitchboardClientError) in
                try await session.client.repost(id)
            }
            var r = Self.postRecord("post.reposted", p, style: .success)
            r.text = "reposted: " + r.text
            printer.emit(r)
        }
    }

    /// `thread POST_ID [--after SEQ] [--limit N]`: ancestors, the post (marked ▶), its direct replies.
    public func showThread(_ target: String, after: Int64?, limit: Int?) async throws(CLIError) {
        let id = try Self.postId(target)
        try await withSession { session throws(CLIError) in
            let t = try await ask(session, "reading the thread") { () async throws(SwitchboardClientError) in
                try await session.client.thread(id, after: after, limit: limit)
            }
            for a in t.ancestors { printer.emit(Self.postRecord("thread.ancestor", a, style: .dim)) }
            var main = Self.postRecord("thread.post", t.post)
            main.text = "▶ " + main.text
            printer.emit(main)
            for r in t.replies {
                var line = Self.postRecord("thread.reply", r)
                line.text = "  " + line.text
                printer.emit(line)
            }
            if t.replies.isEmpty && after == nil { printer.hint("no replies yet") }
            if let next = t.after { printer.hint("more replies: thread \(id) --after \(next)") }
        }
    }

    // MARK: timelines

    /// `timeline [home|@h|mentions|likes [@h]|#tag] [--before SEQ] [--limit N] [--replies] [--follow]`.
    public func timeline(_ kind: TimelineKind, before: Int64?, limit: Int?, replies: Bool, follow: Bool)
        async throws(CLIError) -> CLIExitCode
    {
        if follow {
            switch kind {
            case .likes, .hashtag: throw CLIError("--follow works with home, @handle and mentions", exitCode: .usage)
            default: break
            }
        }
        return try await withSession(interactive: follow) { session throws(CLIError) -> CLIExitCode in
            var userId: Int64?
            if case .user(let target) = kind { userId = try await socialUserId(target, session) }
            let page: TimelinePage
            do throws(SwitchboardClientError) {
                let client = session.client
                switch kind {
                case .home: page = TimelinePage(try await client.homeTimeline(before: before, limit: limit))
                case .user:
                    page = TimelinePage(
                        try await client.userTimeline(userId: userId, replies: replies, before: before, limit: limit))
                case .mentions: page = TimelinePage(try await client.mentionsTimeline(before: before, limit: limit))
                case .likes(let who):
                    let id: Int64?
                    if let who { id = try await socialProfileId(who, client) } else { id = nil }
                    page = TimelinePage(try await client.likesTimeline(userId: id, before: before, limit: limit))
                case .hashtag(let tag):
                    page = TimelinePage(try await client.hashtagTimeline(tag, before: before, limit: limit))
                }
            } catch {
                throw fail(error, "reading the timeline", session.url)
            }
            if let profile = page.profile { printer.emit(Self.profileRecord(profile)) }
            // Newest first, as the server gives it.
            for p in page.posts { printer.emit(Self.postRecord("post", p)) }
            if page.posts.isEmpty && before == nil { printer.hint("no posts yet") }
            if let older = page.older, !page.posts.isEmpty, !follow {
                printer.hint("older: timeline \(Self.kindWords(kind)) --before \(older)")
            }
            if case .json = printer.mode {
                // Scripts page with these (people get the hint above).
                let older = page.older
                printer.emit(
                    OutputRecord(
                        "timeline.page",
                        ["before": older.map(JSONValue.int) ?? .null, "after": page.after.map(JSONValue.int) ?? .null],
                        text: ""))
            }
            guard follow else { return .ok }
            let newest = max(page.after ?? 0, page.posts.map(\.seq).max() ?? 0)
            return try await followTimeline(kind, userId: userId, since: newest, session)
        }
    }

    private func socialProfileId(_ target: String, _ client: SwitchboardClient) async throws(SwitchboardClientError)
        -> Int64
    {
        if let id = Int64(target.hasPrefix("#") ? String(target.dropFirst()) : target) { return id }
        return try await client.socialProfile(handle: target.hasPrefix("@") ? String(target.dropFirst()) : target)
            .userId
    }

    static func kindWords(_ kind: TimelineKind) -> String {
        switch kind {
        case .home: return "home"
        case .user(let t): return t
        case .mentions: return "mentions"
        case .likes(let who): return "likes" + (who.map { " " + $0 } ?? "")
        case .hashtag(let tag): return "#" + tag
        }
    }

    /// `timeline ... --follow`: subscribes to the live stream and prints new posts, deletions and counts until Ctrl-C;
    /// after a reconnect it subscribes again from the newest seq shown (missed posts first).
    private func followTimeline(_ kind: TimelineKind, userId: Int64?, since: Int64, _ session: AuthenticatedSession)
        async throws(CLIError)
        -> CLIExitCode
    {
        let client = session.client
        let stream: String
        switch kind {
        case .user: stream = "user:\(userId ?? 0)"
        case .mentions: stream = "notifications"
        default: stream = "home"
        }
        let inputs = SessionInputs(client: client, readInput: false)
        var newest = since
        var shown = Set<Int64>()
        let first: LiveSubscribeResult
        do {
            first = try await client.subscribeLive([stream], since: newest)
        } catch {
            throw fail(error, "subscribing to the live page", session.url)
        }
        printer.emit(
            OutputRecord(
                "live.subscribed", ["streams": .array(first.subscribed.map(JSONValue.string)), "seq": .int(first.seq)],
                text: "following \(Self.kindWords(kind)) live; Ctrl-C to stop", style: .success))
        let printer = self.printer
        func show(_ p: SocialPost) {
            guard shown.insert(p.postId).inserted else { return }
            newest = max(newest, p.seq)
            printer.emit(Self.postRecord("post.new", p, style: .incoming))
        }
        if stream != "notifications" { for p in first.posts { show(p) } }
        var wasDisconnected = false
        for await input in inputs.stream {
            switch input {
            case .event(.other(let raw)):
                guard let event = SocialAPI.Event(raw) else { continue }
                switch event {
                case .postNew(let p) where stream != "notifications":
                    show(p)
                case .postDeleted(let postId, let seq, _, _):
                    newest = max(newest, seq)
                    printer.emit(
                        OutputRecord(
                            "post.deleted", ["post_id": .int(postId), "seq": .int(seq)],
                            text: "post #\(postId) was deleted", style: .dim))
                case .postCounts(let postId, let likes, let reposts, let replies):
                    printer.emit(
                        OutputRecord(
                            "post.counts",
                            [
                                "post_id": .int(postId), "like_count": .int(likes), "repost_count": .int(reposts),
                                "reply_count": .int(replies),
                            ],
                            text: "post #\(postId)  ♥ \(likes) ↻ \(reposts) ↩ \(replies)", style: .dim))
                case .postPhotos(let postId, let photos):
                    printer.emit(Self.photosRecord(postId: postId, photos: photos))
                case .notification(let n, _) where stream == "notifications" && n.kind == "mention":
                    // A mention: fetch the mentioning post (the notification carries its id).
                    guard let postId = n.postId else { continue }
                    let continuation = inputs.continuation
                    Task {
                        if let p = try? await client.socialPost(postId) {
                            continuation.yield(.record(Self.postRecord("post.new", p, style: .incoming)))
                        }
                    }
                default:
                    continue
                }
            case .event(.state(.reconnecting)), .event(.disconnected):
                if !wasDisconnected {
                    printer.emit(
                        OutputRecord("live.disconnected", [:], text: "connection lost; reconnecting…", style: .warning))
                }
                wasDisconnected = true
            case .event(.state(.authenticated)) where wasDisconnected:
                // The server forgot the subscription with the old connection: subscribe again from what was shown.
                wasDisconnected = false
                let continuation = inputs.continuation
                let from = newest
                let forPosts = stream != "notifications"
                Task {
                    do {
                        let again = try await client.subscribeLive([stream], since: from)
                        if again.resyncRequired {
                            continuation.yield(
                                .record(
                                    OutputRecord(
                                        "live.resync", [:],
                                        text: "many posts were missed: run timeline again to see them all",
                                        style: .warning)))
                        }
                        continuation.yield(
                            .record(
                                OutputRecord(
                                    "live.resubscribed", ["missed": .int(Int64(forPosts ? again.posts.count : 0))],
                                    text: "live again"
                                        + (forPosts && !again.posts.isEmpty ? " (\(again.posts.count) missed)" : ""),
                                    style: .success)))
                        if forPosts {
                            for p in again.posts {
                                continuation.yield(.record(Self.postRecord("post.new", p, style: .incoming)))
                            }
                        }
                        // Mentions have no replay in the subscription: read the ones newer than what was shown.
                        if !forPosts, let missed = try? await client.mentionsTimeline(after: from, limit: 100) {
                            for p in missed.posts.reversed() {
                                continuation.yield(.record(Self.postRecord("post.new", p, style: .incoming)))
                            }
                        }
                    } catch {
                        continuation.yield(
                            .record(
                                OutputRecord(
                                    "live.error", ["error": .string("\(error)")],
                                    text: "could not subscribe again: \(error)", style: .failure)))
                    }
                }
            case .record(let r):
                if r.type == "post.new", case .object(let f) = r.fields["post"] ?? .null,
                    case .int(let id)? = f["post_id"]
                {
                    guard shown.insert(id).inserted else { continue }
                    if case .int(let seq)? = f["seq"] { newest = max(newest, seq) }
                }
                printer.emit(r)
            case .interrupt:
                return .ok
            case .event(.state(.closed(let reason))):
                printer.error("the connection ended: \(reason)")
                return reason == .sessionRevoked ? .notLoggedIn : .connection
            case .eventsEnded:
                return .connection
            default:
                continue
            }
        }
        return .ok
    }

    // MARK: follows

    /// `follow @h`.
    public func followUser(_ target: String) async throws(CLIError) {
        try await withSession { session throws(CLIError) in
            let id = try await socialUserId(target, session)
            let r = try await ask(session, "following") { () async throws(SwitchboardClientError) in
                try await session.client.follow(id)
            }
            let who = r.profile.handle.map { "@" + $0 } ?? target
            printer.emit(
                OutputRecord(
                    "follow",
                    ["user_id": .int(id), "state": .string(r.state), "profile": SocialAPI.jsonValue(r.profile)],
                    text: r.state == "pending"
                        ? "requested to follow \(who) (a protected account approves requests)" : "following \(who)",
                    style: .success))
        }
    }

    /// `unfollow @h`.
    public func unfollowUser(_ target: String) async throws(CLIError) {
        try await withSession { session throws(CLIError) in
            let id = try await socialUserId(target, session)
            try await ask(session, "unfollowing") { () async throws(SwitchboardClientError) in
                try await session.client.unfollow(id)
            }
            printer.emit(
                OutputRecord("unfollow", ["user_id": .int(id)], text: "no longer following \(target)", style: .success))
        }
    }

    /// `requests [approve|deny @h]`.
    public func followRequests(action: String?, target: String?) async throws(CLIError) {
        if let action, !["approve", "deny"].contains(action) {
            throw CLIError("requests [approve|deny @handle]", exitCode: .usage)
        }
        if action != nil && target == nil { throw CLIError("requests \(action ?? "") needs @handle", exitCode: .usage) }
        try await withSession { session throws(CLIError) in
            if let action, let target {
                let id = try await socialUserId(target, session)
                try await ask(session, action == "approve" ? "approving" : "denying") {
                    () async throws(SwitchboardClientError) in
                    if action == "approve" {
                        try await session.client.approveFollow(id)
                    } else {
                        try await session.client.denyFollow(id)
                    }
                }
                printer.emit(
                    OutputRecord(
                        action == "approve" ? "follow.approved" : "follow.denied", ["user_id": .int(id)],
                        text: action == "approve" ? "\(target) now follows you" : "denied \(target)'s request",
                        style: .success))
                return
            }
            let page = try await ask(session, "listing follow requests") { () async throws(SwitchboardClientError) in
                try await session.client.followRequests(limit: 100)
            }
            for r in page.requests {
                var fields = Self.socialUserFields(r.user)
                fields["request_id"] = .int(r.requestId)
                fields["created_at"] = .string(r.createdAt)
                printer.emit(
                    OutputRecord(
                        "follow.request", fields,
                        text: Self.socialUserLine(r.user) + "  asked " + Self.shortTime(r.createdAt), style: .incoming))
            }
            if page.requests.isEmpty {
                printer.hint("no follow requests")
            } else {
                printer.hint("approve with: requests approve @handle")
            }
        }
    }

    /// `followers [@h]` / `following [@h]`.
    public func followList(followers: Bool, target: String?, before: Int64?, limit: Int?) async throws(CLIError) {
        try await withSession { session throws(CLIError) in
            var id: Int64?
            if let target { id = try await socialUserId(target, session) }
            let who = id
            let page = try await ask(session, followers ? "listing followers" : "listing follows") {
                () async throws(SwitchboardClientError) in
                if followers {
                    try await session.client.followers(of: who, before: before, limit: limit)
                } else {
                    try await session.client.following(of: who, before: before, limit: limit)
                }
            }
            for u in page.users {
                printer.emit(
                    OutputRecord(
                        followers ? "follower" : "following", Self.socialUserFields(u), text: Self.socialUserLine(u)))
            }
            if page.users.isEmpty && before == nil {
                printer.hint(followers ? "no followers yet" : "not following anyone yet")
            }
            if let next = page.nextBefore {
                printer.hint(
                    "more: \(followers ? "followers" : "following")\(target.map { " " + $0 } ?? "") --before \(next)")
            }
        }
    }

    /// `block|unblock|mute|unmute @h`.
    public func relationship(_ action: String, _ target: String) async throws(CLIError) {
        try await withSession { session throws(CLIError) in
            // A user you blocked is invisible to you (`profile.get`: not_found): find them in your blocked list.
            var blocked: Int64?
            if action == "unblock", Int64(target.hasPrefix("#") ? String(target.dropFirst()) : target) == nil {
                blocked = try await blockedUserId(
                    handle: target.hasPrefix("@") ? String(target.dropFirst()) : target, session)
            }
            let id: Int64
            if let blocked { id = blocked } else { id = try await socialUserId(target, session) }
            try await ask(session, action) { () async throws(SwitchboardClientError) in
                switch action {
                case "block": try await session.client.block(id)
                case "unblock": try await session.client.unblock(id)
                case "mute": try await session.client.mute(id)
                default: try await session.client.unmute(id)
                }
            }
            let past =
                ["block": "blocked", "unblock": "unblocked", "mute": "muted", "unmute": "unmuted"][action] ?? action
            printer.emit(OutputRecord(past, ["user_id": .int(id)], text: "\(past) \(target)", style: .success))
        }
    }

    /// `block` / `mute` without a user: everyone you blocked or muted, newest first.
    public func listRelationship(blocks: Bool) async throws(CLIError) {
        try await withSession { session throws(CLIError) in
            var before: Int64?
            var shown = 0
            for _ in 0..<100 {
                let cursor = before
                let page = try await ask(session, blocks ? "listing blocked users" : "listing muted users") {
                    () async throws(SwitchboardClientError) in
                    if blocks {
                        try await session.client.blockedUsers(before: cursor, limit: 100)
                    } else {
                        try await session.client.mutedUsers(before: cursor, limit: 100)
                    }
                }
                for u in page.users {
                    printer.emit(
                        OutputRecord(
                            blocks ? "blocked_user" : "muted_user", Self.socialUserFields(u),
                            text: Self.socialUserLine(u)))
                }
                shown += page.users.count
                guard let next = page.nextBefore, !page.users.isEmpty else { break }
                before = next
            }
            if shown == 0 { printer.hint(blocks ? "you have blocked no one" : "you have muted no one") }
        }
    }

    /// The id of the user with `handle` (case-insensitive) in your blocked list, or nil.
    private func blockedUserId(handle: String, _ session: AuthenticatedSession) async throws(CLIError) -> Int64? {
        var before: Int64?
        for _ in 0..<100 {
            let cursor = before
            let page = try await ask(session, "listing blocked users") { () async throws(SwitchboardClientError) in
                try await session.client.blockedUsers(before: cursor, limit: 100)
            }
            if let u = page.users.first(where: { $0.handle?.lowercased() == handle.lowercased() }) { return u.userId }
            guard let next = page.nextBefore, !page.users.isEmpty else { return nil }
            before = next
        }
        return nil
    }

    // MARK: notifications

    /// `notifications [--read] [--before ID]`: grouped social notifications; `--read` marks them read.
    public func socialNotifications(read: Bool, before: Int64?, limit: Int?) async throws(CLIError) {
        try await withSession { session throws(CLIError) in
            if read {
                let unread = try await ask(session, "marking notifications read") {
                    () async throws(SwitchboardClientError) in
                    try await session.client.readSocialNotifications()
                }
                printer.emit(
                    OutputRecord(
                        "notifications.read", ["unread": .int(unread)], text: "notifications marked read",
                        style: .success))
                return
            }
            let list = try await ask(session, "listing notifications") { () async throws(SwitchboardClientError) in
                try await session.client.socialNotifications(before: before, limit: limit)
            }
            for g in list.groups {
                var fields: [String: JSONValue] = [
                    "kind": .string(g.kind), "actors": .array(g.actors.map { .object(Self.socialUserFields($0)) }),
                    "actor_count": .int(g.actorCount),
                    "latest_at": .string(g.latestAt), "newest_id": .int(g.newestId), "unread": .bool(g.unread),
                ]
                fields["post"] = g.post.map { SocialAPI.jsonValue($0) } ?? .null
                printer.emit(
                    OutputRecord("notification", fields, text: Self.groupLine(g), style: g.unread ? .incoming : .plain))
            }
            if list.groups.isEmpty && before == nil { printer.hint("no notifications yet") }
            printer.emit(
                OutputRecord(
                    "notifications.unread", ["unread": .int(list.unread)],
                    text: list.unread > 0
                        ? "● \(list.unread) unread (notifications --read to mark them read)" : "nothing unread",
                    style: list.unread > 0 ? .incoming : .dim))
            if let next = list.nextBefore { printer.hint("older: notifications --before \(next)") }
        }
    }

    /// "@ann and 3 others liked your post #12: text".
    static func groupLine(_ g: SocialNotificationGroup) -> String {
        let names = g.actors.prefix(2).map(\.label)
        var who = names.joined(separator: ", ")
        let others = g.actorCount - Int64(names.count)
        if others > 0 { who += " and \(others) other\(others == 1 ? "" : "s")" }
        if who.isEmpty { who = "someone" }
        let verb: String
        switch g.kind {
        case "follow": verb = "followed you"
        case "follow_request": verb = "asked to follow you"
        case "like": verb = "liked your post"
        case "repost": verb = "reposted your post"
        case "reply": verb = "replied"
        case "mention": verb = "mentioned you"
        default: verb = g.kind
        }
        var s = (g.unread ? "● " : "") + "\(who) \(verb)"
        if let p = g.post {
            let text = p.shown.text.replacingOccurrences(of: "\n", with: " ")
            s += " #\(p.postId): " + (text.count > 60 ? String(text.prefix(59)) + "…" : text)
        }
        return s + "  " + shortTime(g.latestAt)
    }
}

extension EventFormatter {
    /// A social event in a sentence (`listen` shows them): follows, blocks and mutes from your other devices,
    /// notifications and, on a live page, posts, deletions and counts; nil for other events.
    public static func social(_ raw: RawEvent) -> OutputRecord? {
        guard let event = SocialAPI.Event(raw) else { return nil }
        switch event {
        case .postNew(let p):
            return CLIContext.postRecord("post.new", p, style: .incoming)
        case .postDeleted(let postId, let seq, _, _):
            return OutputRecord(
                "post.deleted", ["post_id": .int(postId), "seq": .int(seq)], text: "post #\(postId) was deleted",
                style: .dim)
        case .postCounts(let postId, let likes, let reposts, let replies):
            return OutputRecord(
                "post.counts",
                [
                    "post_id": .int(postId), "like_count": .int(likes), "repost_count": .int(reposts),
                    "reply_count": .int(replies),
                ],
                text: "post #\(postId)  ♥ \(likes) ↻ \(reposts) ↩ \(replies)", style: .dim)
        case .postPhotos(let postId, let photos):
            return CLIContext.photosRecord(postId: postId, photos: photos)
        case .profileCounts(let userId, let posts, let following, let followers):
            return OutputRecord(
                "profile.counts",
                [
                    "user_id": .int(userId), "posts": .int(posts), "following": .int(following),
                    "followers": .int(followers),
                ],
                text: "user #\(userId): \(posts) posts, \(following) following, \(followers) followers", style: .dim)
        case .notification(let n, let unread):
            let who = n.actor.label
            let what: String
            switch n.kind {
            case "follow": what = "\(who) followed you"
            case "follow_request":
                what = "\(who) asked to follow you (requests approve \(n.actor.handle.map { "@" + $0 } ?? "@handle"))"
            case "like": what = "\(who) liked your post" + (n.postId.map { " #\($0)" } ?? "")
            case "repost": what = "\(who) reposted your post" + (n.postId.map { " #\($0)" } ?? "")
            case "reply": what = "\(who) replied" + (n.postId.map { ": #\($0)" } ?? "")
            case "mention": what = "\(who) mentioned you" + (n.postId.map { " in #\($0)" } ?? "")
            default: what = "\(who): \(n.kind)"
            }
            return OutputRecord(
                "notification",
                [
                    "id": .int(n.id), "kind": .string(n.kind), "actor_id": .int(n.actor.userId),
                    "post_id": n.postId.map(JSONValue.int) ?? .null, "unread": .int(unread),
                ],
                text: "● \(what)  (\(unread) unread)", style: .incoming)
        case .notificationsRead(let readId, let unread):
            return OutputRecord(
                "notifications.read", ["read_id": .int(readId), "unread": .int(unread)],
                text: "notifications read on another device; \(unread) unread", style: .dim)
        case .followChanged(let userId, let state):
            let text =
                state == "active"
                ? "you follow user #\(userId)"
                : state == "pending"
                    ? "follow request to user #\(userId) pending" : "you no longer follow user #\(userId)"
            return OutputRecord(
                "follow.changed", ["user_id": .int(userId), "state": .string(state)], text: text, style: .dim)
        case .relationshipChanged(let userId, let blocking, let muting):
            return OutputRecord(
                "relationship.changed",
                ["user_id": .int(userId), "blocking": .bool(blocking), "muting": .bool(muting)],
                text: "user #\(userId): " + (blocking ? "blocked" : "not blocked") + ", "
                    + (muting ? "muted" : "not muted"), style: .dim)
        }
    }
}

extension SocialUser {
    /// `@handle`, else the display name.
    var label: String { handle.map { "@" + $0 } ?? displayName }
}
