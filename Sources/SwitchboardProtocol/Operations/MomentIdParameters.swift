//===----------------------------------------------------------------------===//
//
// This source file is part of the Switchboard open source project
//
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//

/// `{moment_id}`.
public struct MomentIdParameters: Codable, Sendable, Equatable {
    public var momentId: Int64
    public init(momentId: Int64) { self.momentId = momentId }
}
