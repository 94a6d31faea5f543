//===----------------------------------------------------------------------===//
//
// This source file is part of the Switchboard open source project
//
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//

/// How to close.
public enum CloseMode: Sendable {
    /// Drop queued output and close now.
    case immediately
    /// Stop reading, write what is queued, then close (bounded by `Connection.flushCloseTimeout`).
    case afterFlush
}
