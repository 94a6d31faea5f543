//===----------------------------------------------------------------------===//
//
// This source file is part of the Switchboard open source project
//
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//

extension UInt64 {
    /// Saturating addition for deadlines.
    func addingClamped(_ other: UInt64) -> UInt64 {
        let (sum, overflow) = self.addingReportingOverflow(other)
        return overflow ? .max : sum
    }
}
