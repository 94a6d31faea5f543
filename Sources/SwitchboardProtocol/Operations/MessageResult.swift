//===----------------------------------------------------------------------===//
//
// This source file is part of the Switchboard open source project
//
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//

/// `{message}`.
public struct MessageResult: Codable, Sendable, Equatable {
    public var message: ChatMessage
    public init(message: ChatMessage) { self.message = message }
}
