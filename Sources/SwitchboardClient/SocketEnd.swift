//===----------------------------------------------------------------------===//
//
// This source file is part of the Switchboard open source project
//
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//

/// How a client socket ended.
struct SocketEnd: Sendable, CustomStringConvertible {
    /// Whether the WebSocket had opened (the upgrade succeeded) before it ended.
    var wasOpen: Bool
    /// The server's close code, when it sent a close frame.
    var closeCode: UInt16?
    /// Why, in words (error, refused upgrade, timeout).
    var reason: String

    var description: String {
        if let closeCode { return "close \(closeCode)" + (reason.isEmpty ? "" : " (\(reason))") }
        return reason
    }
}
