//===----------------------------------------------------------------------===//
//
// This source file is part of the Switchboard open source project
//
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//

/// PostgreSQL's per-session limits on waiting and idling, set on connect (libpq `options`, so they hold again after
/// a reconnect): `lock_timeout`, `idle_in_transaction_session_timeout` and `statement_timeout`. Zero turns a limit
/// off (PostgreSQL's default). Work that must not be cut (migrations) sets them to zero for its own transaction.
public struct PostgresSessionTimeouts: Sendable, Equatable {
    /// Longest wait for a lock (a row lock, a table lock) before the statement fails with SQLSTATE `55P03`, seconds.
    public var lock: Double
    /// Longest time a session may sit idle inside an open transaction before PostgreSQL ends the session
    /// (SQLSTATE `25P03`), seconds: a stuck transaction does not hold its locks forever.
    public var idleInTransaction: Double
    /// Longest run of one statement before it is cancelled (SQLSTATE `57014`), seconds.
    public var statement: Double

    /// Every limit off (PostgreSQL's defaults): what a connection has unless given others.
    public static let none = PostgresSessionTimeouts(lock: 0, idleInTransaction: 0, statement: 0)

    /// Limits in seconds; 0 turns one off.
    public init(lock: Double, idleInTransaction: Double, statement: Double) {
        self.lock = lock
        self.idleInTransaction = idleInTransaction
        self.statement = statement
    }

    /// The `-c name=value` settings for libpq's `options` (milliseconds; none for a limit that is off).
    var options: String {
        var text = ""
        for (name, seconds) in [
            ("lock_timeout", lock), ("idle_in_transaction_session_timeout", idleInTransaction),
            ("statement_timeout", statement),
        ] where seconds > 0 {
            // At least 1 ms: a positive limit rounded to 0 would turn it off.
            text += " -c \(name)=\(max(1, Int(min(seconds, 2_000_000) * 1000)))"
        }
        return text
    }
}
