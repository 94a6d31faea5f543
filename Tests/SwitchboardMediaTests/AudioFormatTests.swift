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

@Suite struct AudioFormatTests {
    @Test func sniffsRealFiles() throws {
        let f = Fixtures.shared
        #expect(AudioFormat.sniff(try f.bytes("speech.wav")) == .wav)
        #expect(AudioFormat.sniff(try f.bytes("speech.opus")) == .oggOpus)
        #expect(AudioFormat.sniff(try f.bytes("speech.webm")) == .webmOpus)
        #expect(AudioFormat.sniff(try f.bytes("live.webm")) == .webmOpus)
    }

    @Test func mapsContentTypes() {
        #expect(AudioFormat.declared(contentType: "audio/wav") == .format(.wav))
        #expect(AudioFormat.declared(contentType: "audio/x-wav") == .format(.wav))
        #expect(AudioFormat.declared(contentType: "Audio/Wave") == .format(.wav))
        #expect(AudioFormat.declared(contentType: "audio/ogg; codecs=opus") == .format(.oggOpus))
        #expect(AudioFormat.declared(contentType: "audio/opus") == .format(.oggOpus))
        #expect(AudioFormat.declared(contentType: "audio/webm;codecs=opus") == .format(.webmOpus))
        #expect(AudioFormat.declared(contentType: "video/webm;codecs=\"vp8,opus\"") == .format(.webmOpus))
        #expect(AudioFormat.declared(contentType: "video/webm;codecs=vp8") == .unsupported)
        #expect(AudioFormat.declared(contentType: "application/octet-stream") == .unknown)
        #expect(AudioFormat.declared(contentType: nil) == .unknown)
        #expect(AudioFormat.declared(contentType: "audio/mpeg") == .unsupported)
    }

    @Test func refusesOtherContent() {
        let mp3: [UInt8] = Array("ID3".utf8) + [4, 0, 0, 0, 0, 0, 0] + [UInt8](repeating: 0xFF, count: 200)
        #expect(throws: VoiceError.unsupportedType) { try VoiceTranscoder.transcode(mp3, declaredType: "audio/mpeg") }
        var rng = SystemRandomNumberGenerator()
        let random = (0..<4096).map { _ in UInt8.random(in: 0...255, using: &rng) }
        #expect(throws: VoiceError.unsupportedType) {
            try VoiceTranscoder.transcode([0x42] + random, declaredType: nil)
        }
        #expect(throws: VoiceError.empty) { try VoiceTranscoder.transcode([], declaredType: "audio/wav") }
        #expect(throws: VoiceError.malformed("content is not a recognisable wav file")) {
            try VoiceTranscoder.transcode(Array("RIFF".utf8), declaredType: "audio/wav")
        }
    }

    @Test func errorsMapToHTTP() {
        #expect(VoiceError.unsupportedType.httpStatus == 415)
        #expect(VoiceError.malformed("x").httpStatus == 422)
        #expect(VoiceError.tooLarge.httpStatus == 413)
        #expect(VoiceError.tooLong(durationMs: 1).httpStatus == 413)
        #expect(VoiceError.empty.httpStatus == 422)
        #expect(VoiceError.encoderFailure(-1).httpStatus == 500)
        #expect(VoiceError.tooLong(durationMs: 1).wireCode != VoiceError.tooLarge.wireCode)
    }

    @Test func encoderRefusesBadSettings() throws {
        let wav = try Fixtures.shared.bytes("tone8k.wav")
        #expect(throws: VoiceError.self) {
            try VoiceTranscoder.transcode(wav, declaredType: nil, options: TranscodeOptions(complexity: 11))
        }
    }
}

@Suite struct WaveformTests {
    @Test func packsLikeTelegram() {
        #expect(Waveform.pack5Bit([1, 2, 3]) == [0x41, 0x0C])
        #expect(Waveform.pack5Bit([31, 31, 31, 31, 31, 31, 31, 31]) == [0xFF, 0xFF, 0xFF, 0xFF, 0xFF])
        #expect(Waveform.pack5Bit([40]) == [31])
        let values = (0..<100).map { UInt8(($0 * 7) % 32) }
        let packed = Waveform.pack5Bit(values)
        #expect(packed.count == 63)
        #expect(Waveform.unpack5Bit(packed, count: 100) == values)
        #expect(Waveform.unpack5Bit(packed).prefix(100) == values[...])
    }

    @Test func normalisesToTheLoudestBucket() {
        let rate = 8000
        // 1 s rising linearly in amplitude.
        let samples = (0..<rate).map { Float($0) / Float(rate) * 0.5 * ($0 % 2 == 0 ? 1 : -1) }
        let w = Waveform.compute(samples, sampleRate: rate)
        #expect(w.count == 100)
        #expect(w.last == 31)
        #expect(w.first! <= 1)
        #expect(zip(w, w.dropFirst()).allSatisfy { $0 <= $1 })
        #expect(
            Waveform.compute([Float](repeating: 0, count: 500), sampleRate: rate) == [UInt8](repeating: 0, count: 100))
        #expect(Waveform.compute([], sampleRate: rate) == [UInt8](repeating: 0, count: 100))
        #expect(Waveform.compute([0.1, 0.2], sampleRate: rate).max() == 31)
    }
}

@Suite struct FuzzSeedTests {
    /// The fuzzer's seeds are all valid recordings (so mutations start from deep inside the readers).
    @Test func everySeedTranscodes() throws {
        let seeds = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
            .appendingPathComponent("../../fuzz/seeds/media").standardized
        let names = try FileManager.default.contentsOfDirectory(atPath: seeds.path).sorted()
        #expect(names.count >= 5)
        for name in names {
            let bytes = [UInt8](try Data(contentsOf: seeds.appendingPathComponent(name)))
            #expect(bytes.count < 20_000, "\(name) is too big for a seed")
            let voice = try VoiceTranscoder.transcode(bytes, declaredType: nil)
            #expect(voice.durationMs > 0, "\(name)")
        }
    }
}
