//===----------------------------------------------------------------------===//
//
// This source file is part of the Switchboard open source project
//
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//

import Testing

@testable import SwitchboardImages

@Suite("WebPContainer: metadata chunks removed from the encoder's output")
struct WebPContainerTests {
    /// A RIFF chunk, padded to an even length.
    func chunk(_ type: String, _ payload: [UInt8]) -> [UInt8] {
        Array(type.utf8) + le32(payload.count) + payload + (payload.count % 2 == 1 ? [0] : [])
    }

    func file(_ chunks: [[UInt8]]) -> [UInt8] {
        let body = Array("WEBP".utf8) + chunks.flatMap { $0 }
        return Array("RIFF".utf8) + le32(body.count) + body
    }

    @Test("EXIF, XMP and ICCP go, their VP8X flags are cleared, the rest stays in order")
    func removes() throws {
        // VP8X flags: ICC 0x20 | alpha 0x10 | EXIF 0x08 | XMP 0x04.
        let vp8x = chunk("VP8X", [0x3C, 0, 0, 0, 9, 0, 0, 9, 0, 0])
        let input = file([
            vp8x, chunk("ICCP", [1, 2, 3]), chunk("ALPH", [7]), chunk("VP8 ", [9, 9, 9, 9]),
            chunk("EXIF", Array("Exif\u{0}\u{0}GPS".utf8)), chunk("XMP ", Array("<x:xmpmeta/>".utf8)),
        ])
        let output = try #require(WebPContainer.removingMetadata(input))
        let expected = file([
            chunk("VP8X", [0x10, 0, 0, 0, 9, 0, 0, 9, 0, 0]), chunk("ALPH", [7]), chunk("VP8 ", [9, 9, 9, 9]),
        ])
        #expect(output == expected)
        // A file without metadata is unchanged.
        #expect(WebPContainer.removingMetadata(expected) == expected)
    }

    @Test("malformed containers are refused")
    func malformed() {
        let good = file([chunk("VP8 ", [1, 2, 3, 4])])
        #expect(WebPContainer.removingMetadata(Array(good.dropLast())) == nil)
        #expect(WebPContainer.removingMetadata(good + [0, 0, 0]) == nil)
        #expect(WebPContainer.removingMetadata(Array("RIFF\u{0}\u{0}\u{0}\u{0}WAVE".utf8)) == nil)
        #expect(WebPContainer.removingMetadata([]) == nil)
        var huge = good
        huge[16] = 0xFF
        huge[17] = 0xFF
        huge[18] = 0xFF
        huge[19] = 0xFF
        #expect(WebPContainer.removingMetadata(huge) == nil)
    }
}
