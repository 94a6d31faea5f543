//===----------------------------------------------------------------------===//
//
// This source file is part of the Switchboard open source project
//
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//

extension Duration {
    /// The duration in whole nanoseconds, clamped to `0...UInt64.max`.
    var clampedNanoseconds: UInt64 {
        let (seconds, attoseconds) = self.components
        if seconds < 0 || (seconds == 0 && attoseconds < 0) { return 0 }
        let (wholeNs, overflow) = UInt64(seconds).multipliedReportingOverflow(by: 1_000_000_000)
        if overflow { return .max }
        let (sum, overflow2) = wholeNs.addingReportingOverflow(UInt64(attoseconds / 1_000_000_000))
        return overflow2 ? .max : sum
    }
}
