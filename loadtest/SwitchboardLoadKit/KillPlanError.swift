//===----------------------------------------------------------------------===//
//
// This source file is part of the Switchboard open source project
//
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//

/// Why a kill plan was refused.
public enum KillPlanError: Error, Equatable, CustomStringConvertible {
    case noPids
    case refusedPid(Int32)
    case fractionOutOfRange(Double)
    case windowOutOfRange(Double)

    public var description: String {
        switch self {
        case .noPids: return "--kill-at needs at least one --kill-pid"
        case .refusedPid(let p): return "--kill-pid \(p) refused (below 2, or the load tester itself or its parent)"
        case .fractionOutOfRange(let f): return "--kill-at \(f): must be between 0 and 1 (exclusive)"
        case .windowOutOfRange(let w): return "kill attribution window \(w): must be positive"
        }
    }
}
