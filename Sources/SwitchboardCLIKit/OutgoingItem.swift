//===----------------------------------------------------------------------===//
//
// This source file is part of the Switchboard open source project
//
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//

/// A message typed in a chat, waiting for the sender.
enum OutgoingItem: Sendable {
    case text(String, clientId: String)
    case voice([UInt8], contentType: String?)
}
