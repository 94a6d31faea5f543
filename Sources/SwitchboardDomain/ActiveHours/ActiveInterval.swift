//===----------------------------------------------------------------------===//
//
// This source file is part of the Switchboard open source project
//
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//

public import Foundation

/// One user's connected interval to record: `[from, to)`.
public struct ActiveInterval: Sendable, Equatable {
    public var userId: Int64
    public var from: Date
    public var to: Date
    public init(userId: Int64, from: Date, to: Date) {
        self.userId = userId
        self.from = from
        self.to = to
    }
}
