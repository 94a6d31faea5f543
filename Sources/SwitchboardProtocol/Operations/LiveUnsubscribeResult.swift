//===----------------------------------------------------------------------===//
//
// This source file is part of the Switchboard open source project
//
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//

/// The reply to `live.unsubscribe`.
public struct LiveUnsubscribeResult: Codable, Sendable, Equatable {
    public var subscribed: [String]
    public init(subscribed: [String]) { self.subscribed = subscribed }
}
