//===----------------------------------------------------------------------===//
//
// This source file is part of the Switchboard open source project
//
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//

import SwitchboardClient
public import SwitchboardProtocol

/// Display names by user id, for turning ids in events into names.
public struct NameBook: Sendable, Equatable {
    /// My own user id (shown as "you").
    public var selfId: Int64
    public var names: [Int64: String]

    public init(selfId: Int64, names: [Int64: String] = [:]) {
        self.selfId = selfId
        self.names = names
    }

    /// "you", the display name, or "user N".
    public func name(_ id: Int64?) -> String {
        guard let id else { return "system" }
        if id == selfId { return "you" }
        return names[id] ?? "user \(id)"
    }

    public mutating func learn(_ user: UserSummary) { names[user.userId] = user.displayName }
}
