//===----------------------------------------------------------------------===//
//
// This source file is part of the Switchboard open source project
//
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//

import Foundation

/// A pair of friends with their direct conversation (indices into `users`).
struct BenchPair: Codable, Sendable {
    var a: Int
    var b: Int
    var conversationId: Int
}
