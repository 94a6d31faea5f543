//===----------------------------------------------------------------------===//
//
// This source file is part of the Switchboard open source project
//
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//

import SwitchboardProtocol

/// Reports (docs/protocol.md, "Moderation"; docs/moderation.md).
extension SwitchboardClient {
    /// `report.create {target_kind: message, target_id, reason, text?}`: reports a message I can see.
    /// - Parameter reason: one of `spam`, `harassment`, `hate`, `violence`, `sexual`, `self_harm`, `illegal`,
    ///   `impersonation`, `other`.
    /// - Returns: the report's id (an open report of mine on the same message answers that report).
    /// - Throws: `.server(ServerError)`: `not_found`, `invalid_state` (the message was deleted), `rate_limited`.
    public func report(message messageId: Int64, reason: String, text: String? = nil)
        async throws(SwitchboardClientError) -> Int64
    {
        try await send(
            Ops.ReportCreate.self, .init(targetKind: "message", targetId: messageId, reason: reason, text: text)
        ).reportId
    }

    /// `report.create {target_kind: user, target_id, reason, text?}`: reports a friend or a user I share a
    /// conversation with.
    /// - Throws: `.server(ServerError)`: `not_found` (a stranger, or yourself), `rate_limited`.
    public func report(user userId: Int64, reason: String, text: String? = nil) async throws(SwitchboardClientError)
        -> Int64
    {
        try await send(Ops.ReportCreate.self, .init(targetKind: "user", targetId: userId, reason: reason, text: text))
            .reportId
    }
}
