//===----------------------------------------------------------------------===//
//
// This source file is part of the Switchboard open source project
//
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//

/// One page of a paginated result, newest first: `{<items>: [...], next_before}`, where the list's key comes from
/// the item type (`Page<Photo>` is `{photos, next_before}`) and `next_before` is the cursor to pass as `before`
/// for the next (older) page: null or absent on the last page (`PageItem.pageEndsWithNull`).
///
/// The results that are exactly this shape are `Page`s (`photos.mine`, `moments.feed`, `admin.reports`,
/// `admin.audit`, `community.posts.list`, `post.likers`, `followers`, `following`, `blocks.list`, `mutes.list`,
/// `follow.requests`, `timeline.likes`); each item type adds a named accessor (`page.photos`) and initializer
/// (`Page(photos:nextBefore:)`) so that code reads as it did with one result struct per op.
public struct Page<Item: PageItem>: Codable, Sendable, Equatable {
    /// The items of this page.
    public var items: [Item]
    /// The `before` of the next page; nil on the last page.
    public var nextBefore: Int64?

    /// A page of `items`, followed by the page before `nextBefore` (nil: the last page).
    public init(_ items: [Item], nextBefore: Int64?) {
        self.items = items
        self.nextBefore = nextBefore
    }

    /// Decodes `{<Item.pageKey>: [...], next_before?}`.
    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: AnyKey.self)
        items = try c.decode([Item].self, forKey: AnyKey(Item.pageKey))
        nextBefore = try c.decodeIfPresent(Int64.self, forKey: AnyKey("nextBefore"))
    }

    /// Encodes `{<Item.pageKey>: [...], next_before}` (on the last page `null`, or nothing when
    /// `Item.pageEndsWithNull` is false).
    public func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: AnyKey.self)
        try c.encode(items, forKey: AnyKey(Item.pageKey))
        if Item.pageEndsWithNull {
            try c.encode(nextBefore, forKey: AnyKey("nextBefore"))
        } else {
            try c.encodeIfPresent(nextBefore, forKey: AnyKey("nextBefore"))
        }
    }
}
