//===----------------------------------------------------------------------===//
//
// This source file is part of the Switchboard open source project
//
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//

/// `{moment}`.
public struct MomentResult: Codable, Sendable, Equatable {
    public var moment: Moment
    public init(moment: Moment) { self.moment = moment }
}
