//===----------------------------------------------------------------------===//
//
// This source file is part of the Switchboard open source project
//
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//

/// `online` or `away` (`offline` is the server's to say).
public enum Availability: String, Sendable {
    case online
    case away
}
