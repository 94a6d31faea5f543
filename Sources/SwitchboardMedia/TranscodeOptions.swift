//===----------------------------------------------------------------------===//
//
// This source file is part of the Switchboard open source project
//
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//

/// Settings and limits of one transcode.
public struct TranscodeOptions: Sendable, Equatable {
    /// Target VBR bitrate of the output in bit/s (default 24,000).
    public var bitrate: Int
    /// Opus encoder complexity 0-10 (default 10; 5 is about 1.5x faster).
    public var complexity: Int
    /// Longest accepted recording in milliseconds (default 300,000: 5 minutes).
    public var maxDurationMs: Int
    /// Largest accepted input in bytes (default 20 MiB). The server also enforces its own limit while streaming.
    public var maxInputBytes: Int

    /// Creates options; every parameter has the documented default.
    public init(
        bitrate: Int = 24_000,
        complexity: Int = 10,
        maxDurationMs: Int = 300_000,
        maxInputBytes: Int = 20 * 1024 * 1024
    ) {
        self.bitrate = bitrate
        self.complexity = complexity
        self.maxDurationMs = maxDurationMs
        self.maxInputBytes = maxInputBytes
    }
}
