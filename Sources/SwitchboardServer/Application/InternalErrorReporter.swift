//===----------------------------------------------------------------------===//
//
// This source file is part of the Switchboard open source project
//
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//

import Logging
import SwitchboardCore
import SwitchboardDomain
import SwitchboardProtocol

/// Logs every `internal` answer once, with the op, the user, the connection and the cause
/// (``ServiceError/underlying``), and counts every error answer in ``OperationMetrics``.
///
/// Never logs secrets: the cause is an error's description (a `PostgresError` carries SQLSTATE and the server's
/// message, never statement parameters); no tokens, passwords or message text reach this type.
struct InternalErrorReporter: Sendable {
    let logger: Logger
    let metrics: OperationMetrics

    /// An error answer to `op` is about to be sent.
    func answered(op: String, code: ErrorCode, underlying: (any Error)?, userId: Int64?, connectionId: UInt64) {
        metrics.failed(op, code: code)
        guard code == .internal else { return }
        var metadata: Logger.Metadata = [
            LogKey.op: "\(metrics.label(op))",
            LogKey.connectionId: "\(connectionId)",
            LogKey.error: "\(underlying.map { String(describing: $0) } ?? "none recorded")",
        ]
        if let userId { metadata[LogKey.userId] = "\(userId)" }
        logger.error("internal error answered", metadata: metadata)
    }
}
