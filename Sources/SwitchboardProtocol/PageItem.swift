//===----------------------------------------------------------------------===//
//
// This source file is part of the Switchboard open source project
//
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//

/// An item of a `Page`: it names the page's list on the wire, and whether the last page sends its cursor as null.
public protocol PageItem: Codable, Sendable, Equatable {
    /// The key of the list in a page of these items, as a Swift property name (`photos`, `users`; the codec
    /// converts camelCase to snake_case).
    static var pageKey: String { get }
    /// Whether the last page says `"next_before": null` (true, the default) or leaves `next_before` out.
    static var pageEndsWithNull: Bool { get }
}

extension PageItem {
    /// The last page says `"next_before": null`.
    public static var pageEndsWithNull: Bool { true }
}
