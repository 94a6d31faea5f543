//===----------------------------------------------------------------------===//
//
// This source file is part of the Switchboard open source project
//
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//

/// Receives the mono Float32 samples a reader decodes, in chunks, so that a whole recording never has to be
/// held in memory as PCM.
public protocol PCMSink {
    /// Called once, before the first `write`, with the stream's parameters. Throw to stop decoding
    /// (for example `VoiceError.tooLong`).
    mutating func begin(_ info: PCMStreamInfo) throws(VoiceError)
    /// Called with the next chunk of mono samples (nominally in -1...1). The buffer is only valid during the call.
    mutating func write(_ samples: UnsafeBufferPointer<Float>) throws(VoiceError)
}

/// Rounds `frames / sampleRate` seconds to whole milliseconds.
func durationInMilliseconds(frames: Int, sampleRate: Int) -> Int {
    guard sampleRate > 0 else { return 0 }
    return (frames * 1000 + sampleRate / 2) / sampleRate
}
