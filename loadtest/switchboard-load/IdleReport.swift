//===----------------------------------------------------------------------===//
//
// This source file is part of the Switchboard open source project
//
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//

import ArgumentParser
import Foundation
import SwitchboardClient
import SwitchboardLoadKit
import SwitchboardTransport

struct IdleReport: Codable, Sendable {
    var result: String
    var date: String
    var connections, opened, failed, stillOpen, users: Int
    var serverPids: [Int32]
    var rssBytesBefore: Int?
    var rssBytesAfter: Int?
    var bytesPerConnection: Int?
    /// The servers' `switchboard_heap_bytes` summed (nil when a server's could not be read).
    var heapBytesBefore: Int?
    var heapBytesAfter: Int?
    var heapBytesPerConnection: Int?
    var authenticateP50Ms: Double
    var authenticateP99Ms: Double
    var rows: [VerdictRow]
}
