//===----------------------------------------------------------------------===//
//
// This source file is part of the Switchboard open source project
//
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//

// libFuzzer entry point for the SwitchboardMedia readers and transcoder. Built by fuzz/run-media.sh, which compiles
// this file together with Sources/SwitchboardMedia/*.swift into one module (so internal API is reachable).

/// Counts samples and stops decoding after two seconds at 48 kHz, so that no input can run for long.
struct FuzzSink: PCMSink {
    var samples = 0

    mutating func begin(_ info: PCMStreamInfo) throws(VoiceError) {
        precondition(info.sampleRate >= 8000 && info.sampleRate <= 48_000, "reader announced rate \(info.sampleRate)")
        precondition(info.frameCount >= 0, "negative frame count")
        if info.frameCount > 96_000 { throw .tooLong(durationMs: info.durationMs) }
    }

    mutating func write(_ chunk: UnsafeBufferPointer<Float>) throws(VoiceError) {
        for s in chunk { precondition(s.isFinite, "non-finite sample") }
        samples += chunk.count
        if samples > 96_000 { throw .tooLong(durationMs: samples / 48) }
    }
}

@_cdecl("LLVMFuzzerTestOneInput")
public func mediaFuzzTestOneInput(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let bytes = UnsafeRawBufferPointer(start: data, count: size)
    _ = AudioFormat.sniff(bytes)
    _ = EBMLReader.docType(bytes)
    var sink = FuzzSink()
    _ = try? WAVReader.decode(bytes, into: &sink)
    sink = FuzzSink()
    _ = try? OggOpusReader.decode(bytes, into: &sink)
    sink = FuzzSink()
    _ = try? WebMOpusReader.decode(bytes, into: &sink)
    // The whole pipeline with tiny limits and the cheapest encoder setting.
    let options = TranscodeOptions(complexity: 0, maxDurationMs: 1000, maxInputBytes: 64 * 1024)
    if let voice = try? VoiceTranscoder.transcode(bytes, declaredType: nil, options: options) {
        precondition(voice.waveform.count == 100 && voice.waveform.allSatisfy { $0 <= 31 }, "bad waveform")
        precondition(voice.durationMs <= 1000, "duration over the limit")
        precondition(voice.sha256.count == 32 && voice.byteSize == voice.ogg.count, "bad result")
    }
    return 0
}
