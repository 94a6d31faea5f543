//===----------------------------------------------------------------------===//
//
// This source file is part of the Switchboard open source project
//
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//

/// One sender: a connection and the conversation it writes to.
struct SenderSpec {
    var client: Int
    var conversationId: Int
}
