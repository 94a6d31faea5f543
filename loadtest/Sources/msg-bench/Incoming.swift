//===----------------------------------------------------------------------===//
//
// This source file is part of the Switchboard open source project
//
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//

/// What a received protocol message is, judged from its first bytes and its `"re":` key.
enum Incoming {
    case reply(id: Int)
    case error(id: Int?)
    case event
}
