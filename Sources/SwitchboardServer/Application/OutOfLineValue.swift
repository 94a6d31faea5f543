//===----------------------------------------------------------------------===//
//
// This source file is part of the Switchboard open source project
//
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//

import SwitchboardTransport

/// A value `OutOfLine` can keep: its empty state is `init()`.
protocol OutOfLineValue {
    init()
}
