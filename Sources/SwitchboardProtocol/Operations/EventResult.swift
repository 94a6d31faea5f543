//===----------------------------------------------------------------------===//
//
// This source file is part of the Switchboard open source project
//
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//

/// `{event}`.
public struct EventResult: Codable, Sendable, Equatable {
    public var event: EventInfo
    public init(event: EventInfo) { self.event = event }
}
