//===----------------------------------------------------------------------===//
//
// This source file is part of the Switchboard open source project
//
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//

/// What a batch reads from a conversation's locked row: the last seq and the version of members and name.
public struct ConversationHead: Sendable, Equatable {
    public var lastSeq: Int64
    public var version: Int64
    public init(lastSeq: Int64, version: Int64) {
        self.lastSeq = lastSeq
        self.version = version
    }
}
