//===----------------------------------------------------------------------===//
//
// This source file is part of the Switchboard open source project
//
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//

import SwitchboardCore
import SwitchboardWebSocket

/// A path's parameters by name.
struct PathParameters: Sendable {
    private var values: [(String, String)] = []

    init() {}

    /// The value of `name`, or nil.
    subscript(_ name: String) -> String? {
        values.first { $0.0 == name }?.1
    }

    mutating func set(_ name: String, _ value: String) { values.append((name, value)) }
}
