//===----------------------------------------------------------------------===//
//
// This source file is part of the Switchboard open source project
//
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//

import Foundation

struct SetupReport: Codable, Sendable {
    var users: Int
    var friendships: Int
    var conversations: Int
    var registerSeconds: Double
    var seconds: Double

    enum CodingKeys: String, CodingKey {
        case users, friendships, conversations, registerSeconds = "register_seconds", seconds
    }
}
