//===----------------------------------------------------------------------===//
//
// This source file is part of the Switchboard open source project
//
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//

/// An error from PostgreSQL or libpq.
///
/// `description` is deliberately generic: it names the kind and the SQLSTATE but never the SQL text, parameter
/// values or the server's message (which can quote values, e.g. `Key (email)=(...) already exists`).
/// For debugging details use `String(reflecting: error)`.
public struct PostgresError: Error, Sendable, CustomStringConvertible, CustomDebugStringConvertible {
    /// What went wrong.
    public enum Kind: String, Sendable, Hashable {
        /// The connection could not be established (bad connection string, server down, authentication).
        case connectionFailed
        /// The connection broke and one `PQreset` did not restore it, or it broke during a statement.
        case connectionLost
        /// The server reported an error for a statement; see ``PostgresError/sqlState``.
        case server
        /// A `COMMIT` ended in `ROLLBACK` because an earlier statement of the transaction failed.
        case transactionAborted
        /// libpq refused to send a statement or to switch pipeline mode.
        case sendFailed
        /// A statement of a pipeline was skipped because an earlier statement of the same pipeline failed.
        case pipelineAborted
        /// The connection was closed by ``PostgresConnection/close()`` or the pool was closed.
        case closed
        /// The pool's wait queue was full (``DatabasePool/maxWaiters``, or ``DatabasePool/maxWaitersPerOwner`` of
        /// the caller's owner key): the body never ran.
        case overloaded
    }

    /// What went wrong.
    public let kind: Kind
    /// The five-character SQLSTATE (such as `23505`), when the server sent one.
    public let sqlState: String?
    /// The server's primary message or libpq's error text; only in `debugDescription`.
    public let message: String
    /// The server's detail line, if any; only in `debugDescription`.
    public let detail: String?
    /// The constraint name for integrity violations, if any (names only, no values).
    public let constraint: String?

    init(kind: Kind, sqlState: String? = nil, message: String, detail: String? = nil, constraint: String? = nil) {
        self.kind = kind
        self.sqlState = sqlState
        self.message = message
        self.detail = detail
        self.constraint = constraint
    }

    /// Whether this is a unique-constraint violation (SQLSTATE `23505`).
    public var isUniqueViolation: Bool { sqlState == "23505" }
    /// Whether this is a foreign-key violation (SQLSTATE `23503`).
    public var isForeignKeyViolation: Bool { sqlState == "23503" }
    /// Whether this is a serialization failure or deadlock (SQLSTATE `40001`/`40P01`): the transaction may be retried.
    public var isRetryable: Bool { sqlState == "40001" || sqlState == "40P01" }

    /// A redacted description: kind and SQLSTATE only.
    public var description: String {
        var text = "PostgresError(\(kind.rawValue)"
        if let sqlState { text += ", sqlState: \(sqlState)" }
        if let constraint { text += ", constraint: \(constraint)" }
        if kind == .connectionFailed || kind == .connectionLost {
            // libpq's connection messages name the socket or host, never a password.
            text += ", \(message)"
        }
        return text + ")"
    }

    /// The full description including the server's message and detail (may quote values: do not log by default).
    public var debugDescription: String {
        var text = "PostgresError(\(kind.rawValue)"
        if let sqlState { text += ", sqlState: \(sqlState)" }
        text += ", message: \(message)"
        if let detail { text += ", detail: \(detail)" }
        if let constraint { text += ", constraint: \(constraint)" }
        return text + ")"
    }
}
