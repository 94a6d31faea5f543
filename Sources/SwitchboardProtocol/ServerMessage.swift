//===----------------------------------------------------------------------===//
//
// This source file is part of the Switchboard open source project
//
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//

/// A frame from the server, as a client sees it.
public enum ServerMessage: Sendable, Equatable {
    /// `{"re": id, "ok": {...}}`: decode the result with `result.decode(_:)` as the op's result type.
    case reply(id: RequestID, result: ReplyResult)
    /// `{"re": id, "error": {...}}`; `id` is nil when the server could not read the request's id.
    case error(id: RequestID?, error: ReplyError)
    /// `{"ev": name, ...}`.
    case event(ServerEvent)
}
