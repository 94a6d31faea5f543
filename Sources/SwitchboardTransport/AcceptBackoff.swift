//===----------------------------------------------------------------------===//
//
// This source file is part of the Switchboard open source project
//
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//

/// Back-off for accepting after fd exhaustion (EMFILE/ENFILE): 100 ms doubling to 1 s, reset on success.
public struct AcceptBackoff: Sendable, Equatable {
    public private(set) var current: UInt64 = 0
    public static let initial: UInt64 = 100_000_000
    public static let maximum: UInt64 = 1_000_000_000
    public init() {}
    /// The pause before accepting again after an exhaustion error.
    public mutating func exhausted() -> UInt64 {
        current = current == 0 ? Self.initial : min(current * 2, Self.maximum)
        return current
    }
    /// An accept succeeded.
    public mutating func succeeded() { current = 0 }
}
