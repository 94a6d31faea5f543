//===----------------------------------------------------------------------===//
//
// This source file is part of the Switchboard open source project
//
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//

import Foundation

/// One row of the PASS/FAIL table.
public struct VerdictRow: Codable, Sendable, Equatable {
    public var check: String
    public var measured: String
    public var budget: String
    public var pass: Bool
    public var note: String?

    public init(check: String, measured: String, budget: String, pass: Bool, note: String? = nil) {
        self.check = check
        self.measured = measured
        self.budget = budget
        self.pass = pass
        self.note = note
    }
}
