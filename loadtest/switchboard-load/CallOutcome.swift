//===----------------------------------------------------------------------===//
//
// This source file is part of the Switchboard open source project
//
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//

/// How a call of the mix is meant to end.
enum CallOutcome: String, Sendable, CaseIterable {
    case answered, declined, timeout
}
