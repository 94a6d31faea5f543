//===----------------------------------------------------------------------===//
//
// This source file is part of the Switchboard open source project
//
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//

import Foundation

struct WorkerReport: Codable, Sendable {
    var opened: Int
    var failed: Int
    var seconds: Double
    var authenticateP50Ms: Double
    var authenticateP99Ms: Double
    /// TCP connect and WebSocket upgrade, before the authenticate.
    var connectP50Ms: Double
    var connectP99Ms: Double
    var firstError: String?
}
