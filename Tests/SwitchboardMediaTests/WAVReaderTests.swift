//===----------------------------------------------------------------------===//
//
// This source file is part of the Switchboard open source project
//
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//

import SwitchboardMedia
import Testing

/// Builds WAV files byte by byte, with every header field overridable to make liars.
struct WAVBuilder {
    var formatTag: UInt16 = 1
    var channels: UInt16 = 1
    var sampleRate: UInt32 = 16_000
    var bitsPerSample: UInt16 = 16
    var blockAlign: UInt16?
    var byteRate: UInt32?
    var riffSize: UInt32?
    var dataSize: UInt32?
    var extensibleSubformat: UInt16?
    var chunksBeforeFmt: [[UInt8]] = []
    var dataBeforeFmt = false
    var payload: [UInt8] = []

    static func le16(_ v: UInt16) -> [UInt8] { [UInt8(v & 0xFF), UInt8(v >> 8)] }
    static func le32(_ v: UInt32) -> [UInt8] { (0..<4).map { UInt8((v >> (8 * $0)) & 0xFF) } }

    static func chunk(_ id: String, _ body: [UInt8], size: UInt32? = nil) -> [UInt8] {
        var out = Array(id.utf8) + le32(size ?? UInt32(body.count)) + body
        if body.count % 2 == 1 { out.append(0) }
        return out
    }

    var bytes: [UInt8] {
        let align = blockAlign ?? channels * bitsPerSample / 8
        var fmt =
            Self.le16(extensibleSubformat == nil ? formatTag : 0xFFFE) + Self.le16(channels)
            + Self.le32(sampleRate) + Self.le32(byteRate ?? sampleRate * UInt32(align)) + Self.le16(align)
            + Self.le16(bitsPerSample)
        if let sub = extensibleSubformat {
            fmt +=
                Self.le16(22) + Self.le16(bitsPerSample) + Self.le32(channels == 2 ? 3 : 4) + Self.le16(sub)
                + [0x00, 0x00, 0x00, 0x00, 0x10, 0x00, 0x80, 0x00, 0x00, 0xAA, 0x00, 0x38, 0x9B, 0x71]
        }
        let data = Array("data".utf8) + Self.le32(dataSize ?? UInt32(payload.count)) + payload
        var body = Array("WAVE".utf8) + chunksBeforeFmt.flatMap { $0 }
        body += dataBeforeFmt ? data + Self.chunk("fmt ", fmt) : Self.chunk("fmt ", fmt) + data
        return Array("RIFF".utf8) + Self.le32(riffSize ?? UInt32(body.count)) + body
    }
}

func readWAV(_ builder: WAVBuilder) throws(VoiceError) -> DecodedAudio {
    try builder.bytes.withUnsafeBytes { bytes in Result { () throws(VoiceError) in try WAVReader.read(bytes) } }.get()
}

func int16LE(_ values: [Int16]) -> [UInt8] { values.flatMap { WAVBuilder.le16(UInt16(bitPattern: $0)) } }

@Suite struct WAVReaderTests {
    @Test func decodesInt16AndDownmixesStereo() throws {
        var wav = WAVBuilder(channels: 2)
        wav.payload = int16LE([16384, 16384, -32768, 0, 8192, -8192])
        let audio = try readWAV(wav)
        #expect(audio.samples == [0.5, -0.5, 0])
        #expect(audio.sampleRate == 16_000)
        #expect(audio.inputChannels == 2)
    }

    @Test func decodesInt24() throws {
        var wav = WAVBuilder(bitsPerSample: 24)
        wav.payload = [0x00, 0x00, 0x40, 0x00, 0x00, 0x80, 0xFF, 0xFF, 0xFF]
        #expect(try readWAV(wav).samples == [0.5, -1, -1 / 8_388_608])
    }

    @Test func decodesFloatAndSanitises() throws {
        var wav = WAVBuilder(formatTag: 3, sampleRate: 48_000, bitsPerSample: 32)
        wav.payload = [Float(0.25), .nan, 7, -.infinity].flatMap { WAVBuilder.le32($0.bitPattern) }
        #expect(try readWAV(wav).samples == [0.25, 0, 1, 0])
    }

    @Test func decodesExtensible() throws {
        var wav = WAVBuilder(channels: 2, extensibleSubformat: 1)
        wav.payload = int16LE([16384, 0])
        #expect(try readWAV(wav).samples == [0.25])
        var float = WAVBuilder(channels: 1, bitsPerSample: 32, extensibleSubformat: 3)
        float.payload = WAVBuilder.le32(Float(-0.5).bitPattern)
        #expect(try readWAV(float).samples == [-0.5])
        var other = WAVBuilder(extensibleSubformat: 2)
        other.payload = int16LE([1])
        #expect(throws: VoiceError.unsupportedType) { try readWAV(other) }
    }

    @Test func skipsOddChunksWithPadding() throws {
        var wav = WAVBuilder(chunksBeforeFmt: [WAVBuilder.chunk("LIST", [1, 2, 3]), WAVBuilder.chunk("junk", [9])])
        wav.payload = int16LE([16384])
        #expect(try readWAV(wav).samples == [0.5])
    }

    @Test func streamingSizesMeanToEndOfFile() throws {
        for marker: UInt32 in [0, 0xFFFF_FFFF] {
            var wav = WAVBuilder(riffSize: marker, dataSize: marker)
            wav.payload = int16LE([16384, -16384])
            #expect(try readWAV(wav).samples == [0.5, -0.5])
        }
    }

    @Test func refusesLyingAndAbsurdSizes() {
        var lyingData = WAVBuilder(dataSize: 1000)
        lyingData.payload = int16LE([1, 2])
        #expect(throws: VoiceError.malformed("WAV: data size 1000 exceeds the file (truncated)")) {
            try readWAV(lyingData)
        }
        var lyingRIFF = WAVBuilder(riffSize: 5000)
        lyingRIFF.payload = int16LE([1, 2])
        #expect(throws: VoiceError.self) { try readWAV(lyingRIFF) }
        let absurd = WAVBuilder(chunksBeforeFmt: [Array("LIST".utf8) + WAVBuilder.le32(0x7FFF_FFFF) + [0, 0]])
        #expect(throws: VoiceError.malformed("WAV: chunk size 2147483647 exceeds the file (truncated)")) {
            try readWAV(absurd)
        }
    }

    @Test func refusesTruncation() throws {
        var wav = WAVBuilder()
        wav.payload = int16LE([1, 2, 3, 4])
        let whole = wav.bytes
        for cut in [0, 4, 11, 12, 30, 44, 45, whole.count - 1] {
            let bytes = Array(whole.prefix(cut))
            #expect(throws: VoiceError.self, "cut at \(cut)") {
                try bytes.withUnsafeBytes { b in Result { () throws(VoiceError) in try WAVReader.read(b) } }.get()
            }
        }
        var half = WAVBuilder(riffSize: 0xFFFF_FFFF, dataSize: 0xFFFF_FFFF)
        half.payload = int16LE([1]) + [7]
        #expect(throws: VoiceError.malformed("WAV: data ends in the middle of a sample frame")) { try readWAV(half) }
    }

    @Test func refusesBrokenFormats() {
        #expect(throws: VoiceError.malformed("WAV: zero channels")) { try readWAV(WAVBuilder(channels: 0)) }
        #expect(throws: VoiceError.malformed("WAV: zero sample rate")) { try readWAV(WAVBuilder(sampleRate: 0)) }
        #expect(throws: VoiceError.self) { try readWAV(WAVBuilder(blockAlign: 3)) }
        #expect(throws: VoiceError.self) { try readWAV(WAVBuilder(byteRate: 12345)) }
        #expect(throws: VoiceError.malformed("WAV: data chunk before fmt chunk")) {
            try readWAV(WAVBuilder(dataBeforeFmt: true))
        }
        let noData = Array("RIFF".utf8) + WAVBuilder.le32(4) + Array("WAVE".utf8)
        #expect(throws: VoiceError.malformed("WAV: no fmt chunk")) {
            try noData.withUnsafeBytes { b in Result { () throws(VoiceError) in try WAVReader.read(b) } }.get()
        }
    }

    @Test func refusesUnsupportedEncodings() {
        #expect(throws: VoiceError.unsupportedType) { try readWAV(WAVBuilder(bitsPerSample: 8)) }
        #expect(throws: VoiceError.unsupportedType) { try readWAV(WAVBuilder(formatTag: 7, bitsPerSample: 8)) }
        #expect(throws: VoiceError.unsupportedType) { try readWAV(WAVBuilder(channels: 6)) }
        #expect(throws: VoiceError.unsupportedType) { try readWAV(WAVBuilder(sampleRate: 96_000)) }
        #expect(throws: VoiceError.unsupportedType) { try readWAV(WAVBuilder(sampleRate: 4_000)) }
    }

    @Test func headerOnlyRealFileIsTruncated() throws {
        let real = try Fixtures.shared.bytes("tone8k.wav")
        let header = Array(real.prefix(44))
        #expect(throws: VoiceError.self) { try VoiceTranscoder.transcode(header, declaredType: "audio/wav") }
        let emptyData = WAVBuilder(dataSize: 0).bytes
        #expect(throws: VoiceError.empty) { try VoiceTranscoder.transcode(emptyData, declaredType: "audio/wav") }
    }
}
