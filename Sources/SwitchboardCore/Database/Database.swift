//===----------------------------------------------------------------------===//
//
// This source file is part of the Switchboard open source project
//
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//

public import SwitchboardDomain
public import SwitchboardStore

/// The database as a feature's service sees it: work on one pooled connection, read-only or as one transaction,
/// always off the loop queues. `DatabasePool` implements it; a service is built with `any Database` and owns
/// the transactions of its use cases (`MomentService.setLike`: the rules and every statement in one `write`).
///
/// Failures of the store never reach a feature as libpq errors: the typed forms below turn them into
/// `DatabaseError` (through `FeatureError.database(_:)`), while the feature's own errors thrown inside the
/// body pass through unchanged. A request task cancelled before its turn never runs its body; a body that started
/// runs to its end (a transaction is never cut in half by a cancellation).
public protocol Database: Sendable {
    /// Runs `body` on one pooled connection without a transaction (reads of one statement, or bodies that open
    /// their own snapshot).
    /// - Throws: what `body` throws, or the store's error (overloaded, connection lost, closed, cancelled).
    func read<T: Sendable>(_ body: @escaping @Sendable (PostgresConnection) throws -> T) async throws -> T

    /// Runs `body` in one transaction: committed when it returns, rolled back when it throws.
    /// - Parameter urgent: served before the callers already waiting (a short write that someone waits for).
    /// - Throws: what `body` throws, or the store's error.
    func write<T: Sendable>(urgent: Bool, _ body: @escaping @Sendable (PostgresConnection) throws -> T) async throws
        -> T
}

extension Database {
    /// Runs `body` in one transaction (not urgent).
    public func write<T: Sendable>(_ body: @escaping @Sendable (PostgresConnection) throws -> T) async throws -> T {
        try await write(urgent: false, body)
    }

    /// A read whose failures are the feature's `E`: `E` thrown by `body` passes through, anything else becomes
    /// `E.database(DatabaseError(error))`.
    public func read<T: Sendable, E: FeatureError>(
        as error: E.Type, _ body: @escaping @Sendable (PostgresConnection) throws -> T
    ) async throws(E) -> T {
        do { return try await read(body) } catch { throw E.mapping(error) }
    }

    /// A transaction for reads that need one snapshot (its body's first statement makes it REPEATABLE READ, see
    /// `TimelineRepository.snapshot`): a `write(as:)` without the acting account's lock (`ActingAccount`), which
    /// would be a query before that first statement; it writes nothing, so it has nothing to lock against deletion.
    public func snapshot<T: Sendable, E: FeatureError>(
        as error: E.Type, _ body: @escaping @Sendable (PostgresConnection) throws -> T
    ) async throws(E) -> T {
        do {
            return try await ActingAccount.$userId.withValue(nil) { try await write(urgent: false, body) }
        } catch {
            throw E.mapping(error)
        }
    }

    /// A transaction whose failures are the feature's `E` (see `read(as:_:)`).
    public func write<T: Sendable, E: FeatureError>(
        as error: E.Type, urgent: Bool = false, _ body: @escaping @Sendable (PostgresConnection) throws -> T
    ) async throws(E) -> T {
        do { return try await write(urgent: urgent, body) } catch { throw E.mapping(error) }
    }
}
