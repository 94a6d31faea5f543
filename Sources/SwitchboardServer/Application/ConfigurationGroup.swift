//===----------------------------------------------------------------------===//
//
// This source file is part of the Switchboard open source project
//
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//

import SwitchboardCore

/// The limits of one feature as it runs (its configuration group), for the start-up log.
struct ConfigurationGroup: Sendable {
    /// The feature (`moments`).
    var feature: String
    /// Each limit's flag name and value (`("moment-max-photos", "9")`).
    var values: [(name: String, value: String)]
}
