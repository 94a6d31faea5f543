//===----------------------------------------------------------------------===//
//
// This source file is part of the Switchboard open source project
//
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//

import SwitchboardProtocol
import Testing

@Suite("Cluster bus messages")
struct ClusterWireTests {
    /// Every kind of item, with fan-out-sized connection lists (copied in one piece each way), survives the trip.
    @Test func deliverRoundTripsWithLargeConnectionLists() {
        let many = (0..<1_000).map { UInt64($0) << 40 | UInt64($0 &* 7919) }
        let message = ClusterWire.deliver([
            .init(
                item: .message(conversationId: 42, seq: 7, payload: Array("{\"event\":\"message\"}".utf8)),
                connections: many),
            .init(item: .ephemeral(Array("{}".utf8), source: "p:9"), connections: [1, UInt64.max]),
            .init(item: .event(Array("{\"event\":\"x\"}".utf8)), connections: []),
            .init(item: .revoke, connections: [3]),
            .init(item: .reconnect, connections: [5, 6]),
            .init(
                item: .reply(requestId: Array("5".utf8), op: "calls.accept", success: false, body: Array("{}".utf8)),
                connections: [4]),
        ])
        let bytes = message.encoded()
        #expect(ClusterWire.decode(bytes) == message)
        // Cut anywhere, it is refused rather than misread.
        for cut in stride(from: 0, to: bytes.count, by: 97) {
            #expect(ClusterWire.decode(Array(bytes[..<cut])) == nil)
        }
        // A count that promises more connections than the bytes hold is refused.
        var lying = ClusterWire.deliver([.init(item: .revoke, connections: [1, 2])]).encoded()
        lying.removeLast(8)
        #expect(ClusterWire.decode(lying) == nil)
    }
}
