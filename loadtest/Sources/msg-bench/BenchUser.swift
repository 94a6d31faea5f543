//===----------------------------------------------------------------------===//
//
// This source file is part of the Switchboard open source project
//
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//

import Foundation

/// One registered user.
struct BenchUser: Codable, Sendable {
    var id: Int
    var token: String
}
