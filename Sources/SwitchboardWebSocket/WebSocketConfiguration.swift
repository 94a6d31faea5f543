//===----------------------------------------------------------------------===//
//
// This source file is part of the Switchboard open source project
//
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//

/// Limits and timers of one WebSocket connection (durations in nanoseconds).
public struct WebSocketConfiguration: Sendable {
    /// Largest frame payload (1009 past it).
    public var maxFrameSize: Int = 1 << 20
    /// Largest message after reassembly and inflation (1009 past it).
    public var maxMessageSize: Int = 1 << 20
    /// Silence after which we ping.
    public var pingInterval: UInt64 = 30_000_000_000
    /// Silence after which we close with 1001.
    public var idleTimeout: UInt64 = 90_000_000_000
    /// How long we wait for the peer's close frame after ours before dropping TCP.
    public var closeTimeout: UInt64 = 5_000_000_000
    /// Messages shorter than this are not compressed.
    public var minimumSizeToCompress: Int = 32
    /// zlib level for our messages.
    public var compressionLevel: Int32 = 6
    public init() {}
}
