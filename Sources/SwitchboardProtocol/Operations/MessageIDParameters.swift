//===----------------------------------------------------------------------===//
//
// This source file is part of the Switchboard open source project
//
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//

/// `{message_id}`.
public struct MessageIDParameters: Codable, Sendable, Equatable {
    public var messageId: Int64
    public init(messageId: Int64) { self.messageId = messageId }
}
