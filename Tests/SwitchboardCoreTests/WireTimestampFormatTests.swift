//===----------------------------------------------------------------------===//
//
// This source file is part of the Switchboard open source project
//
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//

import Foundation
import SwitchboardCore
import SwitchboardDomain
import SwitchboardProtocol
import Testing

/// The Swift side of the one wire timestamp format (the SQL side is checked over sockets in the integration tests).
@Suite("Wire timestamps")
struct WireTimestampFormatTests {
    @Test func formatsMillisecondsInUTCTruncated() {
        #expect(
            WireTimestamp.string(from: Date(timeIntervalSince1970: 1_795_495_576.123_9)) == "2026-11-24T04:46:16.123Z")
        #expect(WireTimestamp.string(from: Date(timeIntervalSince1970: 0)) == "1970-01-01T00:00:00.000Z")
        #expect(WireTimestamp.string(from: Date(timeIntervalSince1970: 1_795_495_576)) == "2026-11-24T04:46:16.000Z")
        #expect(WireTimestamp.isWellFormed(WireTimestamp.now()))
    }

    @Test func wellFormedIsExactlyTheWireShape() {
        #expect(WireTimestamp.isWellFormed("2026-11-24T04:46:16.123Z"))
        for bad in [
            "2026-11-24T04:46:16Z", "2026-11-24T04:46:16.123456Z", "2026-11-24 04:46:16.123Z",
            "2026-11-24T04:46:16.123+00", "",
        ] {
            #expect(!WireTimestamp.isWellFormed(bad), "\(bad)")
        }
    }

    @Test func theSQLExpressionIsIndependentOfTheSessionTimeZone() {
        #expect(
            WireTimestamp.sql("m.created_at")
                == #"to_char((m.created_at) AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"')"#)
    }
}
