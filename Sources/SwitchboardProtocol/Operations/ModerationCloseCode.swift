//===----------------------------------------------------------------------===//
//
// This source file is part of the Switchboard open source project
//
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//

/// The WebSocket close code of a suspended account's connections (after `account.suspended`).
public enum ModerationCloseCode {
    public static let accountSuspended: UInt16 = 4004
}
