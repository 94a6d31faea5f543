//===----------------------------------------------------------------------===//
//
// This source file is part of the Switchboard open source project
//
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//

/// A sink that keeps every sample: for tests and small inputs.
struct CollectingSink: PCMSink {
    var info = PCMStreamInfo(sampleRate: 0, inputChannels: 0, frameCount: 0)
    var samples: [Float] = []

    mutating func begin(_ info: PCMStreamInfo) throws(VoiceError) {
        self.info = info
        self.samples.reserveCapacity(min(info.frameCount, 1 << 20))
    }

    mutating func write(_ samples: UnsafeBufferPointer<Float>) throws(VoiceError) {
        self.samples.append(contentsOf: samples)
    }

    var decoded: DecodedAudio {
        DecodedAudio(samples: samples, sampleRate: info.sampleRate, inputChannels: info.inputChannels)
    }
}
