//===----------------------------------------------------------------------===//
//
// This source file is part of the Switchboard open source project
//
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//

/// A conversation of the run.
struct LoadConversation: Sendable {
    let id: Int64
    /// Client indexes.
    let members: [Int]
    let isGroup: Bool
}
