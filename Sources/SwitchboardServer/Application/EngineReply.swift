//===----------------------------------------------------------------------===//
//
// This source file is part of the Switchboard open source project
//
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//

import Dispatch
import Foundation
import SwitchboardCore
import SwitchboardDomain
import SwitchboardProtocol
import SwitchboardTransport
import Synchronization

/// What an engine answers to a connection's request, as a value (it may cross a bus): the connection
/// encodes it for the wire.
enum EngineReply: Sendable {
    // Each answer names its request's op: an error answer is counted per op and code (and `internal` logged)
    // by the connection that sends it.
    /// The result of a message write: the short acknowledgement (`messages.send`) or `{"message": ...}`.
    case message(RequestID, op: String, Result<ChatMessage, ServiceError>, ack: Bool)
    /// `{}`, or the error.
    case empty(RequestID, op: String, ServiceError?)
    /// Raw JSON for `ok` (calls), or the error.
    case raw(RequestID, op: String, Result<[UInt8], ServiceError>)
    /// A new group's first message was delivered by its writer: the connection answers with the group's summary.
    case groupAnnounced(RequestID, conversationId: Int64)
}
