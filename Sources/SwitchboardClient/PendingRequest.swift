//===----------------------------------------------------------------------===//
//
// This source file is part of the Switchboard open source project
//
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//

import Dispatch
import Foundation

/// One request waiting for its reply; confined to the client's loop queue.
final class PendingRequest: @unchecked Sendable {
    // @unchecked Sendable: created on any thread, then touched only on the client's loop queue.
    enum Kind {
        /// The application's request: its caller awaits the result.
        case user
        /// The client's re-authentication after a reconnect.
        case reauthenticate
        /// The client's resume after a reconnect.
        case sync
        /// The client's `conversations.list` that sets the resume baseline of a new session.
        case baseline
        /// The client's `sync` after a message event arrived over a gap in its conversation's seqs.
        case gapSync
    }

    let id: Int64
    let op: String
    let frame: [UInt8]
    let resendable: Bool
    let kind: Kind
    /// The token of an `authenticate` (kept as the session's when it succeeds).
    var authToken: String?
    /// With `authenticate(token:resumeFrom:)`: the resume points; a `sync` follows the request.
    var resumeFrom: [Int64: Int64]?
    /// The `client_id` of a `messages.send` (its message arriving in a catch-up acknowledges it).
    var sendClientId: String?
    var timer: DispatchWorkItem?
    private var completion: ((Result<ReplyPayload, SwitchboardClientError>) -> Void)?

    init(
        id: Int64, op: String, frame: [UInt8], resendable: Bool, kind: Kind,
        completion: @escaping (Result<ReplyPayload, SwitchboardClientError>) -> Void
    ) {
        self.id = id
        self.op = op
        self.frame = frame
        self.resendable = resendable
        self.kind = kind
        self.completion = completion
    }

    /// Calls the completion once.
    func complete(_ result: Result<ReplyPayload, SwitchboardClientError>) {
        let c = completion
        completion = nil
        c?(result)
    }
}
