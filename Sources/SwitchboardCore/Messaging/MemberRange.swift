//===----------------------------------------------------------------------===//
//
// This source file is part of the Switchboard open source project
//
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//

/// A member's visible range of a conversation: messages with `joinedSeq < seq`, up to `leftSeq` once it left.
public struct MemberRange: Sendable, Equatable {
    public var joinedSeq: Int64
    public var leftSeq: Int64?
    public init(joinedSeq: Int64, leftSeq: Int64? = nil) {
        self.joinedSeq = joinedSeq
        self.leftSeq = leftSeq
    }
    public var isActive: Bool { leftSeq == nil }
    public func sees(_ seq: Int64) -> Bool { seq > joinedSeq && (leftSeq.map { seq <= $0 } ?? true) }
}
