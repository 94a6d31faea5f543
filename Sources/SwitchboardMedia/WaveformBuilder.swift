//===----------------------------------------------------------------------===//
//
// This source file is part of the Switchboard open source project
//
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//

/// Builds a waveform incrementally from a stream of mono samples of unknown length.
///
/// It keeps the peak absolute amplitude of each ~1 ms block (a 5-minute recording: 300,000 floats). At the end
/// the signal is split into 100 equal buckets of samples; each bucket's value is the largest block peak whose
/// block starts in it; values are scaled so that the loudest bucket is 31 and rounded to the nearest integer.
/// Silence gives all zeros.
public struct WaveformBuilder: Sendable {
    private let blockSize: Int
    private var peaks: [Float] = []
    private var current: Float = 0
    private var inBlock = 0
    /// Samples seen so far.
    public private(set) var sampleCount = 0

    /// - Parameter sampleRate: the rate of the samples to come (sets the block size to 1 ms).
    public init(sampleRate: Int) {
        blockSize = max(1, sampleRate / 1000)
    }

    /// Adds the next samples.
    public mutating func add(_ samples: UnsafeBufferPointer<Float>) {
        for s in samples {
            let a = abs(s)
            if a > current { current = a }
            inBlock += 1
            if inBlock == blockSize {
                peaks.append(current)
                current = 0
                inBlock = 0
            }
        }
        sampleCount += samples.count
    }

    /// The 100 values in 0...31 (all zeros for silence or no samples).
    public func finish() -> [UInt8] {
        var peaks = self.peaks
        if inBlock > 0 { peaks.append(current) }
        let barCount = Waveform.barCount
        guard !peaks.isEmpty, sampleCount > 0 else { return [UInt8](repeating: 0, count: barCount) }
        var bars = [Float](repeating: 0, count: barCount)
        for i in 0..<barCount {
            let startSample = i * sampleCount / barCount
            let endSample = (i + 1) * sampleCount / barCount
            let firstBlock = min(startSample / blockSize, peaks.count - 1)
            let lastBlock = max(firstBlock, min((max(endSample, startSample + 1) - 1) / blockSize, peaks.count - 1))
            var peak: Float = 0
            for b in firstBlock...lastBlock where peaks[b] > peak { peak = peaks[b] }
            bars[i] = peak
        }
        let loudest = bars.max() ?? 0
        guard loudest > 0 else { return [UInt8](repeating: 0, count: barCount) }
        return bars.map { UInt8(min(Float(Waveform.maxValue), ($0 / loudest * Float(Waveform.maxValue)).rounded())) }
    }
}
