//===----------------------------------------------------------------------===//
//
// This source file is part of the Switchboard open source project
//
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//

import SwitchboardWebSocket
import Testing

@Suite("HTTP Range header")
struct HTTPRangeTests {
    @Test func forms() {
        #expect(HTTPRange.parse("bytes=0-99", size: 1000) == .range(0...99))
        #expect(HTTPRange.parse("bytes=990-2000", size: 1000) == .range(990...999))
        #expect(HTTPRange.parse("bytes=500-", size: 1000) == .range(500...999))
        #expect(HTTPRange.parse("bytes=-10", size: 1000) == .range(990...999))
        #expect(HTTPRange.parse("bytes=-5000", size: 1000) == .range(0...999))
        #expect(HTTPRange.parse("bytes= 1 - 2 ", size: 1000) == .range(1...2))
    }

    @Test func unsatisfiableAndIgnored() {
        #expect(HTTPRange.parse("bytes=1000-", size: 1000) == .unsatisfiable)
        #expect(HTTPRange.parse("bytes=-0", size: 1000) == .unsatisfiable)
        #expect(HTTPRange.parse("bytes=0-0", size: 0) == .unsatisfiable)
        #expect(HTTPRange.parse(nil, size: 10) == .none)
        #expect(HTTPRange.parse("items=0-1", size: 10) == .none)
        #expect(HTTPRange.parse("bytes=0-1,3-4", size: 10) == .none)
        #expect(HTTPRange.parse("bytes=5-2", size: 10) == .none)
        #expect(HTTPRange.parse("bytes=a-b", size: 10) == .none)
        #expect(HTTPRange.parse("bytes=-", size: 10) == .none)
        #expect(HTTPRange.parse("bytes=+1-2", size: 10) == .none)
        #expect(HTTPRange.parse("bytes=99999999999999999999999-", size: 10) == .none)
        #expect(HTTPRange.parse("bytes=1-٣", size: 10) == .none)
    }

    /// Client integers at the edges of `Int` never trap (issue 13, item 3): too many digits are ignored, the
    /// largest accepted values are clamped to the representation.
    @Test func extremeIntegers() {
        #expect(HTTPRange.parse("bytes=-9223372036854775808", size: 10) == .none)
        #expect(HTTPRange.parse("bytes=0-9223372036854775807", size: 10) == .none)
        #expect(HTTPRange.parse("bytes=9223372036854775807-", size: 10) == .none)
        #expect(HTTPRange.parse("bytes=0-999999999999999999", size: 10) == .range(0...9))
        #expect(HTTPRange.parse("bytes=-999999999999999999", size: 10) == .range(0...9))
        #expect(HTTPRange.parse("bytes=999999999999999999-999999999999999999", size: 10) == .unsatisfiable)
        #expect(
            HTTPRange.parse("bytes=-999999999999999999", size: Int.max)
                == .range((Int.max - 999_999_999_999_999_999)...(Int.max - 1)))
        #expect(HTTPRange.parse("bytes=0-", size: Int.max) == .range(0...(Int.max - 1)))
    }
}
