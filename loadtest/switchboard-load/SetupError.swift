//===----------------------------------------------------------------------===//
//
// This source file is part of the Switchboard open source project
//
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//

/// Thrown when the population cannot be set up (the run cannot start).
struct SetupError: Error, CustomStringConvertible {
    let description: String
}
