//===----------------------------------------------------------------------===//
//
// This source file is part of the Switchboard open source project
//
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//

import Foundation

/// An event the client does not model: decode its fields with `decode(_:)`.
public struct RawEvent: Sendable, Equatable {
    /// The event name (`ev`).
    public let name: String
    /// The whole frame (UTF-8 JSON).
    public let frame: [UInt8]
    /// When the client read the frame (monotonic nanoseconds, `CLOCK_MONOTONIC`), on its connection's loop, before
    /// the event waited on the `events` stream: a load tester's latencies end here, not when its consumer got to it.
    /// 0 for an event built with `init(name:frame:)`. Not part of equality.
    public let receivedAt: UInt64

    /// An event as received (tests and tools build them to feed code that handles events).
    public init(name: String, frame: [UInt8], receivedAt: UInt64 = 0) {
        self.name = name
        self.frame = frame
        self.receivedAt = receivedAt
    }

    public static func == (a: RawEvent, b: RawEvent) -> Bool { a.name == b.name && a.frame == b.frame }

    /// Decodes the event's fields (snake_case keys become camelCase properties).
    public func decode<T: Decodable>(_ type: T.Type) throws(SwitchboardClientError) -> T {
        do {
            return try WireCoding.decoder().decode(T.self, from: Data(frame))
        } catch {
            throw .invalidMessage("event \(name): \(error)")
        }
    }

    /// The frame as a JSON object.
    public func jsonObject() -> [String: Any] {
        (try? JSONSerialization.jsonObject(with: Data(frame))) as? [String: Any] ?? [:]
    }
}
