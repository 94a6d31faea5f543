//===----------------------------------------------------------------------===//
//
// This source file is part of the Switchboard open source project
//
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//

// The item types of the paginated results, with each page's named accessor and initializer.

extension Photo: PageItem {
    /// `{photos, next_before}`.
    public static var pageKey: String { "photos" }
}

extension Page where Item == Photo {
    /// A page of photos.
    public init(photos: [Photo], nextBefore: Int64?) { self.init(photos, nextBefore: nextBefore) }
    /// The photos, newest first.
    public var photos: [Photo] {
        get { items }
        set { items = newValue }
    }
}

extension Moment: PageItem {
    /// `{moments, next_before}`.
    public static var pageKey: String { "moments" }
}

extension Page where Item == Moment {
    /// A page of moments.
    public init(moments: [Moment], nextBefore: Int64?) { self.init(moments, nextBefore: nextBefore) }
    /// The moments, newest first.
    public var moments: [Moment] {
        get { items }
        set { items = newValue }
    }
}

extension ModerationReport: PageItem {
    /// `{reports, next_before?}`: absent on the last page.
    public static var pageKey: String { "reports" }
    /// `next_before` is absent on the last page.
    public static var pageEndsWithNull: Bool { false }
}

extension Page where Item == ModerationReport {
    /// A page of reports.
    public init(reports: [ModerationReport], nextBefore: Int64?) { self.init(reports, nextBefore: nextBefore) }
    /// The reports, newest first.
    public var reports: [ModerationReport] {
        get { items }
        set { items = newValue }
    }
}

extension AuditEntry: PageItem {
    /// `{entries, next_before?}`: absent on the last page.
    public static var pageKey: String { "entries" }
    /// `next_before` is absent on the last page.
    public static var pageEndsWithNull: Bool { false }
}

extension Page where Item == AuditEntry {
    /// A page of the audit log.
    public init(entries: [AuditEntry], nextBefore: Int64?) { self.init(entries, nextBefore: nextBefore) }
    /// The entries, newest first.
    public var entries: [AuditEntry] {
        get { items }
        set { items = newValue }
    }
}

extension CommunityPost: PageItem {
    /// `{posts, next_before}`.
    public static var pageKey: String { "posts" }
}

extension Page where Item == CommunityPost {
    /// A page of a community's posts.
    public init(posts: [CommunityPost], nextBefore: Int64?) { self.init(posts, nextBefore: nextBefore) }
    /// The posts, newest first.
    public var posts: [CommunityPost] {
        get { items }
        set { items = newValue }
    }
}

extension SocialUser: PageItem {
    /// `{users, next_before}`.
    public static var pageKey: String { "users" }
}

extension Page where Item == SocialUser {
    /// A page of users.
    public init(users: [SocialUser], nextBefore: Int64?) { self.init(users, nextBefore: nextBefore) }
    /// The users, newest first.
    public var users: [SocialUser] {
        get { items }
        set { items = newValue }
    }
}

extension SocialPost: PageItem {
    /// `{posts, next_before}` (`timeline.likes`; the other timelines are `PostPage`s, with `before` and `after`).
    public static var pageKey: String { "posts" }
}

extension Page where Item == SocialPost {
    /// A page of posts.
    public init(posts: [SocialPost], nextBefore: Int64?) { self.init(posts, nextBefore: nextBefore) }
    /// The posts, newest first.
    public var posts: [SocialPost] {
        get { items }
        set { items = newValue }
    }
}

extension FollowRequestItem: PageItem {
    /// `{requests, next_before}`.
    public static var pageKey: String { "requests" }
}

extension Page where Item == FollowRequestItem {
    /// A page of follow requests.
    public init(requests: [FollowRequestItem], nextBefore: Int64?) { self.init(requests, nextBefore: nextBefore) }
    /// The requests, newest first.
    public var requests: [FollowRequestItem] {
        get { items }
        set { items = newValue }
    }
}
