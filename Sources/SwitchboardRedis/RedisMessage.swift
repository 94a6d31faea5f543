//===----------------------------------------------------------------------===//
//
// This source file is part of the Switchboard open source project
//
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//

/// A message received on a subscribed channel.
public struct RedisMessage: Sendable, Hashable {
    /// The channel it was published to.
    public var channel: [UInt8]
    /// The payload, any bytes.
    public var payload: [UInt8]
    /// Whether it came through a sharded subscription (`SSUBSCRIBE`/`SPUBLISH`).
    public var sharded: Bool

    public init(channel: [UInt8], payload: [UInt8], sharded: Bool) {
        self.channel = channel
        self.payload = payload
        self.sharded = sharded
    }
}
