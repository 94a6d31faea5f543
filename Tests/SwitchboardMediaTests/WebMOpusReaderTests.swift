//===----------------------------------------------------------------------===//
//
// This source file is part of the Switchboard open source project
//
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//

import SwitchboardMedia
import Testing

/// Builds EBML elements for synthetic WebM files.
enum EBML {
    static let unknownSize: [UInt8] = [0x01, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF]

    static func size(_ n: Int) -> [UInt8] {
        if n < 0x7F { return [0x80 | UInt8(n)] }
        if n < 0x3FFF { return [0x40 | UInt8(n >> 8), UInt8(n & 0xFF)] }
        return [0x08] + (0..<4).reversed().map { UInt8((n >> (8 * $0)) & 0xFF) }
    }

    static func element(_ id: [UInt8], _ body: [UInt8], sizeBytes: [UInt8]? = nil) -> [UInt8] {
        id + (sizeBytes ?? size(body.count)) + body
    }

    static func uint(_ id: [UInt8], _ v: UInt64) -> [UInt8] {
        var bytes: [UInt8] = []
        var x = v
        repeat {
            bytes.insert(UInt8(x & 0xFF), at: 0)
            x >>= 8
        } while x > 0
        return element(id, bytes)
    }

    static func header(docType: String = "webm") -> [UInt8] {
        element([0x1A, 0x45, 0xDF, 0xA3], element([0x42, 0x82], Array(docType.utf8)))
    }

    static func opusHead(channels: UInt8 = 1, preSkip: UInt16 = 312) -> [UInt8] {
        Array("OpusHead".utf8) + [1, channels, UInt8(preSkip & 0xFF), UInt8(preSkip >> 8)]
            + [0x80, 0xBB, 0, 0, 0, 0, 0]
    }

    static func tracks(codec: String = "A_OPUS", number: UInt64 = 1, head: [UInt8] = opusHead()) -> [UInt8] {
        let entry =
            uint([0xD7], number) + uint([0x83], 2) + element([0x86], Array(codec.utf8)) + element([0x63, 0xA2], head)
        return element([0x16, 0x54, 0xAE, 0x6B], element([0xAE], entry))
    }

    /// A block header for track 1, timecode 0, with lacing bits.
    static func blockHeader(track: UInt8 = 1, lacing: UInt8 = 0) -> [UInt8] {
        [0x80 | track, 0, 0, 0x80 | (lacing << 1)]
    }

    static func simpleBlock(_ packet: [UInt8], track: UInt8 = 1) -> [UInt8] {
        element([0xA3], blockHeader(track: track) + packet)
    }

    static func cluster(_ children: [UInt8], unknown: Bool = true) -> [UInt8] {
        element([0x1F, 0x43, 0xB6, 0x75], uint([0xE7], 0) + children, sizeBytes: unknown ? unknownSize : nil)
    }

    static func segment(_ children: [UInt8], unknown: Bool = true) -> [UInt8] {
        element([0x18, 0x53, 0x80, 0x67], children, sizeBytes: unknown ? unknownSize : nil)
    }

    /// A 1-byte Opus packet: TOC of a 20 ms CELT fullband mono frame with no payload (decodes to 960 samples).
    static let silentPacket: [UInt8] = [0xF8]
}

func readWebM(_ bytes: [UInt8]) throws(VoiceError) -> DecodedAudio {
    try bytes.withUnsafeBytes { b in Result { () throws(VoiceError) in try WebMOpusReader.read(b) } }.get()
}

@Suite struct WebMOpusReaderTests {
    @Test func readsSimpleBlocksInUnknownSizeClusters() throws {
        let blocks = (0..<10).flatMap { _ in EBML.simpleBlock(EBML.silentPacket) }
        let file = EBML.header() + EBML.segment(EBML.tracks() + EBML.cluster(blocks) + EBML.cluster(blocks))
        let audio = try readWebM(file)
        #expect(audio.sampleRate == 48_000)
        #expect(audio.samples.count == 20 * 960 - 312)
    }

    @Test func readsKnownSizesAndSkipsOtherTracks() throws {
        let blocks =
            EBML.simpleBlock(EBML.silentPacket) + EBML.simpleBlock([0x00, 0x01, 0x02], track: 2)
            + EBML.simpleBlock(EBML.silentPacket)
        let file = EBML.header() + EBML.segment(EBML.tracks() + EBML.cluster(blocks, unknown: false), unknown: false)
        #expect(try readWebM(file).samples.count == 2 * 960 - 312)
    }

    @Test func readsLacedBlocks() throws {
        let p = EBML.silentPacket
        // Xiph: 3 frames, sizes 1 and 1 coded, last implied.
        let xiph = EBML.element([0xA3], EBML.blockHeader(lacing: 1) + [2, 1, 1] + p + p + p)
        // Fixed: 4 frames of 1 byte.
        let fixed = EBML.element([0xA3], EBML.blockHeader(lacing: 2) + [3] + p + p + p + p)
        // EBML: 3 frames, first size 1, then a signed difference of 0 (0xBF with a 1-byte vint).
        let ebml = EBML.element([0xA3], EBML.blockHeader(lacing: 3) + [2, 0x81, 0xBF] + p + p + p)
        let file = EBML.header() + EBML.segment(EBML.tracks() + EBML.cluster(xiph + fixed + ebml))
        #expect(try readWebM(file).samples.count == 10 * 960 - 312)
    }

    @Test func honoursDiscardPaddingInBlockGroups() throws {
        // 10 ms of DiscardPadding = 10,000,000 ns = 480 samples.
        let group = EBML.element(
            [0xA0],
            EBML.element([0xA1], EBML.blockHeader() + EBML.silentPacket)
                + EBML.element([0x75, 0xA2], [0x00, 0x98, 0x96, 0x80]))  // signed: needs the leading zero byte
        let file =
            EBML.header() + EBML.segment(EBML.tracks() + EBML.cluster(EBML.simpleBlock(EBML.silentPacket) + group))
        #expect(try readWebM(file).samples.count == 2 * 960 - 312 - 480)
    }

    @Test func clampsHugeDiscardPadding() throws {
        // DiscardPadding of Int64.max ns: the whole packet is dropped, nothing overflows.
        let group = EBML.element(
            [0xA0],
            EBML.element([0xA1], EBML.blockHeader() + EBML.silentPacket)
                + EBML.element([0x75, 0xA2], [0x7F, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF])
        )
        let file =
            EBML.header() + EBML.segment(EBML.tracks() + EBML.cluster(EBML.simpleBlock(EBML.silentPacket) + group))
        #expect(try readWebM(file).samples.count == 960 - 312)
    }

    @Test func refusesStructuralLies() {
        let body = EBML.simpleBlock(EBML.silentPacket)
        // TrackEntry larger than its Tracks parent.
        var tracks = EBML.tracks()
        tracks[5] += 10
        #expect(throws: VoiceError.self) { try readWebM(EBML.header() + EBML.segment(tracks + EBML.cluster(body))) }
        // 8-byte all-ones size on Tracks.
        let unknownTracks = EBML.element(
            [0x16, 0x54, 0xAE, 0x6B], Array(EBML.tracks().dropFirst(5)), sizeBytes: EBML.unknownSize)
        #expect(throws: VoiceError.malformed("WebM: unknown size on element 0x1654ae6b at 24")) {
            try readWebM(EBML.header() + EBML.segment(unknownTracks + EBML.cluster(body)))
        }
        // A zero byte where an ID starts (a zero-length ID).
        #expect(throws: VoiceError.malformed("EBML: invalid element ID at 24")) {
            try readWebM(EBML.header() + EBML.segment([0x00, 0x81, 0x00] + EBML.tracks() + EBML.cluster(body)))
        }
        // A size byte of zero (a size longer than 8 bytes).
        #expect(throws: VoiceError.self) {
            try readWebM(EBML.header() + EBML.segment([0xEC, 0x00, 0x00] + EBML.tracks() + EBML.cluster(body)))
        }
        // Cluster before Tracks.
        #expect(throws: VoiceError.malformed("WebM: Cluster before Tracks")) {
            try readWebM(EBML.header() + EBML.segment(EBML.cluster(body, unknown: false) + EBML.tracks()))
        }
        // A block past the end of the file.
        let whole = EBML.header() + EBML.segment(EBML.tracks() + EBML.cluster(body + body))
        #expect(throws: VoiceError.self) { try readWebM(Array(whole.dropLast(1))) }
        // An invalid Opus packet (code 3 without its frame count byte).
        #expect(throws: VoiceError.self) {
            try readWebM(EBML.header() + EBML.segment(EBML.tracks() + EBML.cluster(EBML.simpleBlock([0xFB]))))
        }
        // Bad lacing: Xiph sizes beyond the block.
        let badLace = EBML.element([0xA3], EBML.blockHeader(lacing: 1) + [1, 200] + EBML.silentPacket)
        #expect(throws: VoiceError.malformed("WebM: lace sizes exceed the block")) {
            try readWebM(EBML.header() + EBML.segment(EBML.tracks() + EBML.cluster(badLace)))
        }
    }

    @Test func refusesOtherCodecs() {
        let file = EBML.header() + EBML.segment(EBML.tracks(codec: "A_VORBIS") + EBML.cluster(EBML.simpleBlock([1])))
        #expect(throws: VoiceError.unsupportedType) { try readWebM(file) }
        let mkv = EBML.header(docType: "avi") + EBML.segment(EBML.tracks())
        #expect(throws: VoiceError.unsupportedType) { try VoiceTranscoder.transcode(mkv, declaredType: nil) }
    }

    @Test func refusesTruncatedRealFiles() throws {
        for name in ["speech.webm", "live.webm"] {
            let bytes = try Fixtures.shared.bytes(name)
            for fraction in [0.1, 0.5, 0.9] {
                let cut = Array(bytes.prefix(Int(Double(bytes.count) * fraction)))
                #expect(throws: VoiceError.self, "\(name) cut at \(fraction)") {
                    try VoiceTranscoder.transcode(cut, declaredType: "audio/webm")
                }
            }
        }
    }
}
