//===----------------------------------------------------------------------===//
//
// This source file is part of the Switchboard open source project
//
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//

/// A follow's state: `active`, `pending` (a request to a protected account), or `none`.
public enum FollowState: String, Sendable, Codable {
    case active, pending, none
}
