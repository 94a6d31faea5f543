//===----------------------------------------------------------------------===//
//
// This source file is part of the Switchboard open source project
//
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//

/// A direct send's sender and recipient.
public struct DirectPair: Hashable, Sendable {
    public let sender: Int64
    public let recipient: Int64
    public init(sender: Int64, recipient: Int64) {
        self.sender = sender
        self.recipient = recipient
    }
}
