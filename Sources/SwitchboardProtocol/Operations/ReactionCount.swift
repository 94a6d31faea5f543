//===----------------------------------------------------------------------===//
//
// This source file is part of the Switchboard open source project
//
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//

/// The reactions to one message: per emoji, how many members chose it and whether I am one of them (`mine`,
/// absent in `message.reaction` events, which are encoded once for every recipient).
public struct ReactionCount: Codable, Sendable, Equatable {
    public var emoji: String
    public var count: Int64
    public var mine: Bool?
    public init(emoji: String, count: Int64, mine: Bool?) {
        self.emoji = emoji
        self.count = count
        self.mine = mine
    }
}
