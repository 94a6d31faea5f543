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

@Suite("VoiceTranscoder with real audio", .enabled(if: toolsMissingReason == nil, toolsMissingReason ?? ""))
struct TranscodeTests {
    let fixtures = Fixtures.shared

    @Test(
        "WAV inputs transcode to mono 48 kHz Ogg/Opus that matches the input",
        arguments: [
            ("speech.wav", 22_050, 1),
            ("tone44k-s24.wav", 44_100, 2),
            ("tone8k.wav", 8_000, 1),
            ("tone48k-f32.wav", 48_000, 2),
            ("gaps.wav", 16_000, 1),
        ])
    func wavInputs(name: String, rate: Int, channels: Int) throws {
        let input = try fixtures.bytes(name)
        let voice = try VoiceTranscoder.transcode(input, declaredType: "audio/wav", options: TranscodeOptions())
        #expect(voice.inputFormat == .wav)
        #expect(voice.inputSampleRate == rate)
        #expect(voice.inputChannels == channels)
        #expect(voice.byteSize == voice.ogg.count)
        #expect(voice.waveform.count == 100)
        #expect(voice.waveform.max() == 31)
        #expect(voice.sha256.count == 32)
        let reference = try readWAV(input)
        #expect(voice.durationMs == reference.durationMs)
        try verifyWithReferenceTools(voice, reference: reference)
    }

    @Test("Ogg/Opus input from opusenc", arguments: ["speech.opus", "tone-stereo.opus"])
    func oggInput(name: String) throws {
        let voice = try VoiceTranscoder.transcode(try fixtures.bytes(name), declaredType: "audio/ogg")
        #expect(voice.inputFormat == .oggOpus)
        #expect(voice.inputSampleRate == 48_000)
        #expect(voice.inputChannels == (name == "speech.opus" ? 1 : 2))
        let source = try readWAV(fixtures.bytes(name == "speech.opus" ? "speech.wav" : "tone44k-s24.wav"))
        try verifyWithReferenceTools(voice, reference: source)
    }

    @Test(
        "WebM/Opus input from ffmpeg, with and without a Duration and known sizes",
        arguments: ["speech.webm", "live.webm"])
    func webmInput(name: String) throws {
        let input = try fixtures.bytes(name)
        if name == "live.webm" {
            // Segment ID then the 8-byte unknown size, as a live writer emits it.
            let segment: [UInt8] = [0x18, 0x53, 0x80, 0x67, 0x01, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF]
            #expect(input.firstRange(of: segment) != nil, "fixture should have an unknown-size Segment")
        }
        let voice = try VoiceTranscoder.transcode(input, declaredType: "audio/webm;codecs=opus")
        #expect(voice.inputFormat == .webmOpus)
        #expect(voice.inputSampleRate == 48_000)
        let source = try readWAV(fixtures.bytes("speech.wav"))
        try verifyWithReferenceTools(voice, reference: source)
    }

    @Test func webmLikeChromeWithUnknownSizeClusters() throws {
        let input = try fixtures.bytes("chrome-like.webm")
        let cluster: [UInt8] = [0x1F, 0x43, 0xB6, 0x75]
        let first = try #require(input.firstRange(of: cluster))
        #expect(input[first.upperBound] == 0x7F && input[first.upperBound + 1] == 0xFF, "unknown 2-byte size")
        let voice = try VoiceTranscoder.transcode(input, declaredType: "audio/webm;codecs=opus")
        let live = try VoiceTranscoder.transcode(try fixtures.bytes("live.webm"), declaredType: nil)
        #expect(voice.ogg == live.ogg)
        try verifyWithReferenceTools(voice, reference: try readWAV(fixtures.bytes("speech.wav")))
    }

    @Test func webmWithVideoTrackUsesTheOpusTrack() throws {
        let voice = try VoiceTranscoder.transcode(
            try fixtures.bytes("av.webm"), declaredType: "video/webm;codecs=vp8,opus")
        #expect(voice.inputFormat == .webmOpus)
        try verifyWithReferenceTools(voice, reference: try readWAV(fixtures.bytes("speech.wav")))
    }

    @Test func stereoWebm() throws {
        let voice = try VoiceTranscoder.transcode(try fixtures.bytes("tone-stereo.webm"), declaredType: "audio/webm")
        #expect(voice.inputChannels == 2)
        try verifyWithReferenceTools(voice, reference: try readWAV(fixtures.bytes("tone44k-s24.wav")))
    }

    @Test func contentWinsOverDeclaredType() throws {
        let voice = try VoiceTranscoder.transcode(try fixtures.bytes("speech.opus"), declaredType: "audio/wav")
        #expect(voice.inputFormat == .oggOpus)
        let other = try VoiceTranscoder.transcode(
            try fixtures.bytes("tone8k.wav"), declaredType: "application/octet-stream")
        #expect(other.inputFormat == .wav)
        let none = try VoiceTranscoder.transcode(try fixtures.bytes("speech.webm"), declaredType: nil)
        #expect(none.inputFormat == .webmOpus)
    }

    @Test func sameInputGivesSameOutput() throws {
        let input = try fixtures.bytes("tone8k.wav")
        let a = try VoiceTranscoder.transcode(input, declaredType: nil)
        let b = try VoiceTranscoder.transcode(input, declaredType: nil)
        #expect(a.sha256 == b.sha256)
        #expect(a.ogg == b.ogg)
    }

    @Test("The server's default complexity (5) still gives a valid stream that follows the input")
    func complexityFiveMatchesTheInput() throws {
        let input = try fixtures.bytes("speech.wav")
        let voice = try VoiceTranscoder.transcode(
            input, declaredType: "audio/wav", options: TranscodeOptions(complexity: 5))
        try verifyWithReferenceTools(voice, reference: try readWAV(input))
    }

    @Test func bitrateOptionChangesSize() throws {
        let input = try fixtures.bytes("speech.wav")
        let low = try VoiceTranscoder.transcode(input, declaredType: nil, options: TranscodeOptions(bitrate: 12_000))
        let high = try VoiceTranscoder.transcode(input, declaredType: nil, options: TranscodeOptions(bitrate: 48_000))
        #expect(low.byteSize < high.byteSize)
        let seconds = Double(low.durationMs) / 1000
        #expect(Double(low.byteSize) * 8 / seconds < 24_000, "12 kbit/s target")
    }

    @Test func tooLongIsRefusedWithTheDuration() throws {
        let input = try fixtures.bytes("tone44k-s24.wav")
        #expect(throws: VoiceError.tooLong(durationMs: 3000)) {
            try VoiceTranscoder.transcode(input, declaredType: nil, options: TranscodeOptions(maxDurationMs: 2000))
        }
        let speechMs = try readWAV(fixtures.bytes("speech.wav")).durationMs
        #expect(throws: VoiceError.tooLong(durationMs: speechMs)) {
            try VoiceTranscoder.transcode(
                try fixtures.bytes("live.webm"), declaredType: nil,
                options: TranscodeOptions(maxDurationMs: 2000))
        }
        #expect(throws: VoiceError.self) {
            try VoiceTranscoder.transcode(
                try fixtures.bytes("speech.opus"), declaredType: nil,
                options: TranscodeOptions(maxDurationMs: 2000))
        }
    }

    @Test func tooLargeIsRefused() throws {
        let input = try fixtures.bytes("tone8k.wav")
        #expect(throws: VoiceError.tooLarge) {
            try VoiceTranscoder.transcode(
                input, declaredType: nil, options: TranscodeOptions(maxInputBytes: input.count - 1))
        }
    }

    @Test func waveformFollowsTheEnvelope() throws {
        let voice = try VoiceTranscoder.transcode(try fixtures.bytes("gaps.wav"), declaredType: nil)
        // 3 s: tone in 0-0.5, 1-1.5, 2-2.5 s; buckets are 30 ms wide.
        let loud = [2, 10, 40, 45, 70, 80]
        let quiet = [20, 30, 55, 60, 90, 98]
        for i in loud { #expect(voice.waveform[i] >= 28, "bucket \(i): \(voice.waveform[i])") }
        for i in quiet { #expect(voice.waveform[i] == 0, "bucket \(i): \(voice.waveform[i])") }
    }

    @Test("Speed, printed (asserts nothing about timing)")
    func speed() throws {
        let long = fixtures.url("speech30.wav")
        if !FileManager.default.fileExists(atPath: long.path) {
            let r = try run("sox", [fixtures.path("speech.wav"), long.path, "repeat", "7", "trim", "0", "30"])
            #expect(r.status == 0)
            let w = try run(
                "ffmpeg",
                [
                    "-hide_banner", "-loglevel", "error", "-y", "-i", long.path, "-c:a", "libopus",
                    "-b:a", "32k", "-f", "webm", fixtures.path("speech30.webm"),
                ])
            #expect(w.status == 0)
        }
        for name in ["speech30.wav", "speech30.webm"] {
            let input = try fixtures.bytes(name)
            let clock = ContinuousClock()
            var voice: TranscodedVoice?
            let elapsed = try clock.measure { voice = try VoiceTranscoder.transcode(input, declaredType: nil) }
            let seconds = Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18
            let audio = Double(voice?.durationMs ?? 0) / 1000
            print("SPEED \(name): \(audio) s of audio in \(seconds) s = \(audio / seconds)x realtime")
        }
    }
}
