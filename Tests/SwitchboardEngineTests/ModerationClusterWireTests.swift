//===----------------------------------------------------------------------===//
//
// This source file is part of the Switchboard open source project
//
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//

import SwitchboardProtocol
import Testing

@Suite struct ModerationClusterWireTests {
    /// A suspension is announced to every node (each closes its own connections of the account with 4004).
    @Test func theSuspendedNoticeRoundTripsAndRejectsTruncation() {
        for m in [ClusterWire.notice(node: 2, .suspended(userId: 42)), .notice(node: 1, .suspended(userId: Int64.max))]
        {
            let bytes = m.encoded()
            #expect(ClusterWire.decode(bytes) == m)
            for cut in 0..<bytes.count { #expect(ClusterWire.decode(Array(bytes.prefix(cut))) == nil) }
            #expect(ClusterWire.decode(bytes + [0]) == nil)
        }
    }
}
