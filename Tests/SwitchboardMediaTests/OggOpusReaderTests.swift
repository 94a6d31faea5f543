//===----------------------------------------------------------------------===//
//
// This source file is part of the Switchboard open source project
//
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//

import Foundation
import SwitchboardMedia
import Testing

@Suite struct OggOpusReaderTests {
    func readOgg(_ bytes: [UInt8]) throws(VoiceError) -> DecodedAudio {
        try bytes.withUnsafeBytes { b in Result { () throws(VoiceError) in try OggOpusReader.read(b) } }.get()
    }

    @Test func readsExactLengthAt48kHz() throws {
        let source = try readWAV(Fixtures.shared.bytes("speech.wav"))
        let audio = try readOgg(Fixtures.shared.bytes("speech.opus"))
        #expect(audio.sampleRate == 48_000)
        // opusenc keeps the exact input length (resampled to 48 kHz).
        let expected = Double(source.samples.count) * 48_000 / Double(source.sampleRate)
        #expect(abs(Double(audio.samples.count) - expected) <= 48)
    }

    @Test func refusesAnyCorruptedByte() throws {
        let bytes = try Fixtures.shared.bytes("speech.opus")
        // Header pages, an audio page in the middle, and the very last byte.
        for offset in [30, 100, bytes.count / 2, bytes.count - 1] {
            var corrupt = bytes
            corrupt[offset] ^= 0x40
            #expect(throws: VoiceError.self, "flipped byte at \(offset)") { try readOgg(corrupt) }
        }
        var middle = bytes
        middle[bytes.count / 2] ^= 0x01
        #expect {
            try readOgg(middle)
        } throws: { error in
            (error as? VoiceError).map { "\($0)".contains("bad page CRC") } ?? false
        }
    }

    @Test func refusesTruncationAndTrailingGarbage() throws {
        let bytes = try Fixtures.shared.bytes("speech.opus")
        #expect(throws: VoiceError.self) { try readOgg(Array(bytes.dropLast(10))) }
        #expect(throws: VoiceError.self) { try readOgg(bytes + [1, 2, 3]) }
        #expect(throws: VoiceError.self) { try readOgg(Array(bytes.prefix(40))) }
    }

    @Test func oggVorbisIsUnsupported() throws {
        let fixtures = Fixtures.shared
        let out = fixtures.scratch(".ogg")
        let r = try run(
            "ffmpeg",
            ["-hide_banner", "-loglevel", "error", "-i", fixtures.path("tone8k.wav"), "-c:a", "libvorbis", out.path])
        try #require(r.status == 0, "ffmpeg libvorbis: \(r.output)")
        let vorbis = [UInt8](try Data(contentsOf: out))
        #expect(AudioFormat.sniff(vorbis) == nil)
        #expect(throws: VoiceError.unsupportedType) {
            try VoiceTranscoder.transcode(vorbis, declaredType: "audio/mpeg")
        }
    }
}
