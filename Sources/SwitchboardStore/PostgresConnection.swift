//===----------------------------------------------------------------------===//
//
// This source file is part of the Switchboard open source project
//
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//

internal import CLibpq
public import Dispatch
import Foundation
public import Logging

/// One PostgreSQL connection (one `PGconn`), confined to one serial worker queue.
///
/// ## Threading
/// Every method must be called on ``queue`` (checked with `dispatchPrecondition`). libpq calls block, so the queue
/// must be a dedicated worker queue: never a network loop queue and never a Swift-concurrency thread.
/// ``DatabasePool`` owns one queue per connection and hops onto it for you; to use a connection directly,
/// `connection.queue.sync { ... }` from any thread that is not that queue.
///
/// ## Session settings
/// The session runs with `TimeZone=UTC`, `DateStyle=ISO` and `client_encoding=UTF8` (these override the same
/// settings in the connection string), so ``PostgresRow/date(_:)-(Int)`` can parse `timestamptz` text, and with
/// the ``PostgresSessionTimeouts`` it was given (these too override the connection string's `options`).
///
/// ## Reconnection
/// Before each statement, if libpq reports the connection bad (or the idle socket shows the server hung up),
/// the connection calls `PQreset` once and re-prepares its prepared statements; if that fails the call throws
/// ``PostgresError/Kind/connectionLost``. A statement that fails because the connection broke while it ran is
/// **not** retried (it may have committed); the next call reconnects.
public final class PostgresConnection: @unchecked Sendable {
    // @unchecked Sendable: all mutable state (`handle`, the statement caches, `transactionDepth`) is only touched
    // on `queue`, which every method asserts with `dispatchPrecondition`; the rest is immutable.

    /// The serial queue this connection is confined to.
    public let queue: DispatchQueue
    /// The logger (notices arrive here at debug level).
    public let logger: Logger

    // protected by queue
    private var handle: OpaquePointer?
    // protected by queue: SQL text -> server-side statement name, for `execute(cached:_:)` and `pipeline`.
    private var cachedStatements: [String: String] = [:]
    // protected by queue: explicit name -> SQL text, re-prepared after a reset.
    private var namedStatements: [String: String] = [:]
    // protected by queue
    private var nextStatementNumber = 0
    // protected by queue: 0 outside a transaction, 1 in a transaction, more inside savepoints.
    private var transactionDepth = 0
    // protected by queue: a reset failed and none has succeeded since (logged once per change, not per call).
    private var lost = false
    private let noticeSink: Unmanaged<NoticeSink>

    /// Connects (blocking) with a libpq connection string (`key=value` pairs or a `postgresql://` URI).
    ///
    /// May be called on any thread: the new connection is not shared yet. From then on use it only on `queue`.
    /// - Parameters:
    ///   - connectionString: A libpq connection string.
    ///   - queue: The serial queue that will own the connection (a new one by default).
    ///   - logger: Receives notices (debug) and reconnection events.
    ///   - timeouts: The session's lock, idle-in-transaction and statement limits (none by default).
    /// - Throws: ``PostgresError`` of kind ``PostgresError/Kind/connectionFailed``.
    public init(
        connectionString: String,
        queue: DispatchQueue = DispatchQueue(label: "switchboard.postgres"),
        logger: Logger,
        timeouts: PostgresSessionTimeouts = .none
    ) throws {
        self.queue = queue
        self.logger = logger
        self.noticeSink = Unmanaged.passRetained(NoticeSink(logger: logger))
        let keys = ["dbname", "options", "client_encoding", "application_name"]
        let values = [
            connectionString, "-c TimeZone=UTC -c DateStyle=ISO,YMD" + timeouts.options, "UTF8", "switchboard",
        ]
        let connection = Self.withCStringArray(keys) { keyPointers in
            Self.withCStringArray(values) { valuePointers in
                PQconnectdbParams(keyPointers, valuePointers, 1)
            }
        }
        guard let connection, PQstatus(connection) == CONNECTION_OK else {
            let message = connection.map { Self.errorMessage($0) } ?? "out of memory"
            if let connection { PQfinish(connection) }
            // deinit runs (all stored properties are set) and releases the notice sink.
            throw PostgresError(kind: .connectionFailed, message: message)
        }
        self.handle = connection
        installNoticeReceiver(connection)
    }

    deinit {
        if let handle { PQfinish(handle) }
        noticeSink.release()
    }

    /// Whether the connection is open and libpq considers it healthy.
    public var isConnected: Bool {
        dispatchPrecondition(condition: .onQueue(queue))
        guard let handle else { return false }
        return PQstatus(handle) == CONNECTION_OK
    }

    /// Closes the connection (`PQfinish`). Later calls throw ``PostgresError/Kind/closed``.
    public func close() {
        dispatchPrecondition(condition: .onQueue(queue))
        if let handle { PQfinish(handle) }
        handle = nil
        cachedStatements.removeAll()
    }

    // MARK: Queries

    /// Runs one statement with `PQexecParams`; values are only ever passed as parameters (`$1`, `$2`, ...).
    /// - Parameters:
    ///   - sql: One SQL statement with `$n` placeholders.
    ///   - params: The parameter values; `nil` is SQL `NULL`.
    /// - Returns: The result rows (empty for commands).
    /// - Throws: ``PostgresError``.
    @discardableResult
    public func query(_ sql: String, _ params: [PostgresData?] = []) throws -> PostgresRows {
        dispatchPrecondition(condition: .onQueue(queue))
        let connection = try connectedHandle()
        let result = Self.withParameters(params) { count, types, values, lengths, formats in
            PQexecParams(connection, sql, count, types, values, lengths, formats, 0)
        }
        return try consume(result, connection: connection)
    }

    /// Prepares `sql` on the server under `name` (replacing nothing: names must be unique per connection).
    /// The statement is re-prepared automatically after a reconnect.
    /// - Throws: ``PostgresError``.
    public func prepare(name: String, sql: String) throws {
        dispatchPrecondition(condition: .onQueue(queue))
        let connection = try connectedHandle()
        try consume(PQprepare(connection, name, sql, 0, nil), connection: connection)
        namedStatements[name] = sql
    }

    /// Executes a statement prepared with ``prepare(name:sql:)``.
    /// - Throws: ``PostgresError``.
    @discardableResult
    public func execute(prepared name: String, _ params: [PostgresData?] = []) throws -> PostgresRows {
        dispatchPrecondition(condition: .onQueue(queue))
        let connection = try connectedHandle()
        let result = Self.withParameters(params) { count, _, values, lengths, formats in
            PQexecPrepared(connection, name, count, values, lengths, formats, 0)
        }
        return try consume(result, connection: connection)
    }

    /// Executes `sql` as a prepared statement, preparing it on first use; the per-connection cache is keyed by
    /// the SQL text.
    /// - Throws: ``PostgresError``.
    @discardableResult
    public func execute(cached sql: String, _ params: [PostgresData?] = []) throws -> PostgresRows {
        dispatchPrecondition(condition: .onQueue(queue))
        let name = try statementName(for: sql)
        let connection = try connectedHandle()
        let result = Self.withParameters(params) { count, _, values, lengths, formats in
            PQexecPrepared(connection, name, count, values, lengths, formats, 0)
        }
        return try consume(result, connection: connection)
    }

    /// The number of statements in the prepared-statement cache (for tests and metrics).
    public var cachedStatementCount: Int {
        dispatchPrecondition(condition: .onQueue(queue))
        return cachedStatements.count
    }

    /// Runs trusted, constant SQL that may contain several statements (with `PQexec`, the simple protocol).
    ///
    /// - Warning: For migrations and test setup only. Never pass text that contains user input: this has no
    ///   parameters.
    /// - Throws: ``PostgresError``.
    public func executeScript(_ sql: String) throws {
        dispatchPrecondition(condition: .onQueue(queue))
        let connection = try connectedHandle()
        try consume(PQexec(connection, sql), connection: connection)
    }

    // MARK: Transactions

    /// Runs `body` in a transaction: `BEGIN`, then `COMMIT` if it returns, `ROLLBACK` if it throws.
    ///
    /// Nested calls use savepoints. If a statement failed inside and `body` swallowed the error, `COMMIT` ends in a
    /// rollback and this throws ``PostgresError/Kind/transactionAborted``.
    /// - Throws: What `body` throws, or ``PostgresError``.
    public func transaction<T>(_ body: (PostgresConnection) throws -> T) throws -> T {
        dispatchPrecondition(condition: .onQueue(queue))
        let depth = transactionDepth
        let savepoint = "switchboard_sp_\(depth)"
        try query(depth == 0 ? "BEGIN" : "SAVEPOINT \(savepoint)")
        transactionDepth += 1
        defer { transactionDepth = depth }
        let value: T
        do {
            value = try body(self)
        } catch {
            if handle != nil {
                _ = try? query(depth == 0 ? "ROLLBACK" : "ROLLBACK TO SAVEPOINT \(savepoint)")
            }
            throw error
        }
        if depth == 0 {
            let rows = try query("COMMIT")
            if rows.commandTag == "ROLLBACK" {
                throw PostgresError(kind: .transactionAborted, sqlState: "25P02", message: "COMMIT rolled back")
            }
        } else {
            try query("RELEASE SAVEPOINT \(savepoint)")
        }
        return value
    }

    /// Whether a ``transaction(_:)`` is open on this connection.
    public var isInTransaction: Bool {
        dispatchPrecondition(condition: .onQueue(queue))
        return transactionDepth > 0
    }

    // MARK: Pipeline

    /// Runs one prepared statement once per parameter row in libpq pipeline mode: all statements are sent, then
    /// one `PQpipelineSync`, then all results are read in order, so the batch costs one round trip.
    ///
    /// Outside a transaction the batch is one implicit transaction (all or nothing). Inside ``transaction(_:)``
    /// it joins the transaction, so a batch of inserts costs one commit.
    /// If any statement fails, the rest of the pipeline is skipped by the server, every result is still drained,
    /// and the first error is thrown (inside a transaction, the transaction is then aborted). One parameter row runs
    /// as ``execute(cached:_:)`` (the same statement and result, without pipeline mode).
    /// - Parameters:
    ///   - sql: One statement with `$n` placeholders (prepared once and cached, as in ``execute(cached:_:)``).
    ///   - rows: One parameter list per execution.
    /// - Returns: One ``PostgresRows`` per parameter row, in order.
    /// - Throws: ``PostgresError``.
    public func pipeline(sql: String, rows: [[PostgresData?]]) throws -> [PostgresRows] {
        dispatchPrecondition(condition: .onQueue(queue))
        if rows.isEmpty { return [] }
        // One row: the same statement, without entering and leaving pipeline mode.
        if rows.count == 1 { return [try execute(cached: sql, rows[0])] }
        let name = try statementName(for: sql)
        let connection = try connectedHandle()
        guard PQenterPipelineMode(connection) == 1 else {
            throw PostgresError(kind: .sendFailed, message: Self.errorMessage(connection))
        }
        // Non-blocking while sending, so a full socket buffer cannot deadlock us against a server that is
        // blocked writing results we have not read yet: on would-block we drain input into libpq's buffer.
        PQsetnonblocking(connection, 1)
        var sendError: PostgresError?
        var sent = 0
        for params in rows {
            let ok = Self.withParameters(params) { count, _, values, lengths, formats in
                PQsendQueryPrepared(connection, name, count, values, lengths, formats, 0)
            }
            guard ok == 1, flushPipeline(connection) else {
                sendError = PostgresError(kind: .sendFailed, message: Self.errorMessage(connection))
                break
            }
            sent += 1
        }
        let synced = PQpipelineSync(connection) == 1 && flushPipeline(connection)
        PQsetnonblocking(connection, 0)
        if !synced {
            // The connection is unusable mid-pipeline; drop it so the next call resets.
            PQreset(connection)
            cachedStatements.removeAll()
            throw sendError ?? PostgresError(kind: .connectionLost, message: Self.errorMessage(connection))
        }
        var results: [PostgresRows] = []
        results.reserveCapacity(sent)
        var firstError: PostgresError?
        for _ in 0..<sent {
            var rowsOfQuery: PostgresRows?
            while let result = PQgetResult(connection) {
                defer { PQclear(result) }
                switch PQresultStatus(result) {
                case PGRES_COMMAND_OK, PGRES_TUPLES_OK:
                    rowsOfQuery = Self.rows(from: result)
                case PGRES_PIPELINE_ABORTED:
                    if firstError == nil {
                        firstError = PostgresError(kind: .pipelineAborted, message: "pipeline aborted")
                    }
                default:
                    if firstError == nil || firstError?.kind == .pipelineAborted {
                        firstError = Self.error(from: result, connection: connection)
                    }
                }
            }
            if let rowsOfQuery { results.append(rowsOfQuery) }
        }
        // The sync result has no NULL after it.
        if let sync = PQgetResult(connection) {
            if PQresultStatus(sync) != PGRES_PIPELINE_SYNC, firstError == nil {
                firstError = Self.error(from: sync, connection: connection)
            }
            PQclear(sync)
        }
        PQexitPipelineMode(connection)
        if let error = sendError ?? firstError { throw error }
        if PQstatus(connection) != CONNECTION_OK {
            throw PostgresError(kind: .connectionLost, message: Self.errorMessage(connection))
        }
        return results
    }

    /// Flushes libpq's output buffer without blocking forever against the server: while the socket is full, waits
    /// for it to become writable or readable and reads pending input into libpq. Returns false on failure.
    private func flushPipeline(_ connection: OpaquePointer) -> Bool {
        while true {
            let status = PQflush(connection)
            if status == 0 { return true }
            if status < 0 { return false }
            var descriptor = pollfd(fd: PQsocket(connection), events: Int16(POLLIN | POLLOUT), revents: 0)
            let ready = poll(&descriptor, 1, 30_000)
            if ready < 0, errno == EINTR { continue }
            guard ready > 0 else { return false }
            if descriptor.revents & Int16(POLLIN) != 0, PQconsumeInput(connection) == 0 { return false }
        }
    }

    // MARK: Internals

    private func statementName(for sql: String) throws -> String {
        if let name = cachedStatements[sql] { return name }
        let connection = try connectedHandle()
        let name = "switchboard_s\(nextStatementNumber)"
        nextStatementNumber += 1
        try consume(PQprepare(connection, name, sql, 0, nil), connection: connection)
        cachedStatements[sql] = name
        return name
    }

    /// Returns a healthy handle, resetting once if libpq (or the idle socket) says the connection is bad.
    private func connectedHandle() throws -> OpaquePointer {
        guard let connection = handle else {
            throw PostgresError(kind: .closed, message: "connection closed")
        }
        if PQstatus(connection) == CONNECTION_OK, !peerHungUp(connection) { return connection }
        cachedStatements.removeAll()
        PQreset(connection)
        guard PQstatus(connection) == CONNECTION_OK else {
            // Logged when the connection is first lost, not at every call while the server is away.
            if !lost {
                lost = true
                logger.warning(
                    "PostgreSQL connection lost; reconnecting at each use",
                    metadata: [StoreLogKey.event: "lost", "error": "\(Self.errorMessage(connection))"])
            }
            throw PostgresError(kind: .connectionLost, message: Self.errorMessage(connection))
        }
        if lost {
            lost = false
            logger.info("PostgreSQL connection restored", metadata: [StoreLogKey.event: "restored"])
        } else {
            logger.info("PostgreSQL connection was bad; reset", metadata: [StoreLogKey.event: "reset"])
        }
        if transactionDepth > 0 {
            // The open transaction died with the old session.
            throw PostgresError(kind: .connectionLost, message: "connection reset during a transaction")
        }
        for (name, sql) in namedStatements {
            try consume(PQprepare(connection, name, sql, 0, nil), connection: connection)
        }
        return connection
    }

    /// Between statements the socket is only readable if the server sent a notice/notification or hung up.
    /// Reads it; returns true if the connection turned out to be broken.
    private func peerHungUp(_ connection: OpaquePointer) -> Bool {
        var descriptor = pollfd(fd: PQsocket(connection), events: Int16(POLLIN), revents: 0)
        guard poll(&descriptor, 1, 0) > 0 else { return false }
        if descriptor.revents & Int16(POLLHUP | POLLERR | POLLNVAL) != 0 { return true }
        if PQconsumeInput(connection) == 0 { return true }
        return PQstatus(connection) != CONNECTION_OK
    }

    @discardableResult
    private func consume(_ result: OpaquePointer?, connection: OpaquePointer) throws -> PostgresRows {
        guard let result else {
            throw PostgresError(
                kind: PQstatus(connection) == CONNECTION_OK ? .sendFailed : .connectionLost,
                message: Self.errorMessage(connection)
            )
        }
        defer { PQclear(result) }
        // Drain anything else (there is nothing for single statements; PQexec returns the last result).
        switch PQresultStatus(result) {
        case PGRES_COMMAND_OK, PGRES_TUPLES_OK, PGRES_EMPTY_QUERY:
            return Self.rows(from: result)
        default:
            throw Self.error(from: result, connection: connection)
        }
    }

    private static func rows(from result: OpaquePointer) -> PostgresRows {
        let rowCount = Int(PQntuples(result))
        let columnCount = Int(PQnfields(result))
        var columns: [String] = []
        columns.reserveCapacity(columnCount)
        for column in 0..<columnCount {
            columns.append(PQfname(result, Int32(column)).map { String(cString: $0) } ?? "")
        }
        var cells: [[[UInt8]?]] = []
        cells.reserveCapacity(rowCount)
        for row in 0..<rowCount {
            var values: [[UInt8]?] = []
            values.reserveCapacity(columnCount)
            for column in 0..<columnCount {
                if PQgetisnull(result, Int32(row), Int32(column)) == 1 {
                    values.append(nil)
                } else {
                    let length = Int(PQgetlength(result, Int32(row), Int32(column)))
                    let pointer = UnsafeRawPointer(PQgetvalue(result, Int32(row), Int32(column))!)
                    values.append(Array(UnsafeRawBufferPointer(start: pointer, count: length)))
                }
            }
            cells.append(values)
        }
        let tag = PQcmdStatus(result).map { String(cString: $0) } ?? ""
        let tuples = PQcmdTuples(result).map { String(cString: $0) } ?? ""
        return PostgresRows(columns: columns, cells: cells, affectedRows: Int(tuples) ?? rowCount, commandTag: tag)
    }

    private static func error(from result: OpaquePointer, connection: OpaquePointer) -> PostgresError {
        func field(_ code: Character) -> String? {
            PQresultErrorField(result, Int32(code.asciiValue!)).map { String(cString: $0) }
        }
        guard let sqlState = field("C") else {
            let lost = PQstatus(connection) != CONNECTION_OK
            return PostgresError(kind: lost ? .connectionLost : .sendFailed, message: errorMessage(connection))
        }
        return PostgresError(
            kind: .server,
            sqlState: sqlState,
            message: field("M") ?? "",
            detail: field("D"),
            constraint: field("n")
        )
    }

    private static func errorMessage(_ connection: OpaquePointer) -> String {
        let text = PQerrorMessage(connection).map { String(cString: $0) } ?? ""
        return text.trimmingCharacters(in: .whitespacesAndNewlines)
    }

    private func installNoticeReceiver(_ connection: OpaquePointer) {
        PQsetNoticeReceiver(
            connection,
            { context, result in
                guard let context, let result else { return }
                let sink = Unmanaged<NoticeSink>.fromOpaque(context).takeUnretainedValue()
                let message = PQresultErrorField(result, Int32(Character("M").asciiValue!)).map {
                    String(cString: $0)
                }
                let severity = PQresultErrorField(result, Int32(Character("V").asciiValue!)).map {
                    String(cString: $0)
                }
                sink.logger.debug(
                    "PostgreSQL notice",
                    metadata: [
                        StoreLogKey.noticeSeverity: "\(severity ?? "NOTICE")",
                        StoreLogKey.noticeMessage: "\(message ?? "")",
                    ]
                )
            },
            noticeSink.toOpaque()
        )
    }

    /// Encodes parameters into C arrays for the duration of `body`.
    private static func withParameters<R>(
        _ params: [PostgresData?],
        _ body: (
            Int32, UnsafePointer<Oid>?, UnsafePointer<UnsafePointer<CChar>?>?, UnsafePointer<Int32>?,
            UnsafePointer<Int32>?
        ) -> R
    ) -> R {
        if params.isEmpty { return body(0, nil, nil, nil, nil) }
        var types: [Oid] = []
        var lengths: [Int32] = []
        var formats: [Int32] = []
        var buffers: [UnsafeMutablePointer<CChar>?] = []
        for param in params {
            guard let param else {
                types.append(0)
                lengths.append(0)
                formats.append(0)
                buffers.append(nil)
                continue
            }
            let bytes = param.wireBytes
            let buffer = UnsafeMutablePointer<CChar>.allocate(capacity: bytes.count + 1)
            bytes.withUnsafeBytes { raw in
                UnsafeMutableRawPointer(buffer).copyMemory(
                    from: raw.baseAddress ?? UnsafeRawPointer(buffer),
                    byteCount: raw.count
                )
            }
            buffer[bytes.count] = 0
            types.append(param.typeOID)
            lengths.append(Int32(bytes.count))
            formats.append(param.format)
            buffers.append(buffer)
        }
        defer { for buffer in buffers { buffer?.deallocate() } }
        let values = buffers.map { UnsafePointer($0) }
        return types.withUnsafeBufferPointer { types in
            values.withUnsafeBufferPointer { values in
                lengths.withUnsafeBufferPointer { lengths in
                    formats.withUnsafeBufferPointer { formats in
                        body(
                            Int32(params.count),
                            types.baseAddress,
                            values.baseAddress,
                            lengths.baseAddress,
                            formats.baseAddress
                        )
                    }
                }
            }
        }
    }

    private static func withCStringArray<R>(_ strings: [String], _ body: (UnsafePointer<UnsafePointer<CChar>?>) -> R)
        -> R
    {
        let copies: [UnsafeMutablePointer<CChar>?] = strings.map { strdup($0) } + [nil]
        defer { for copy in copies { free(copy) } }
        let pointers = copies.map { UnsafePointer($0) }
        return pointers.withUnsafeBufferPointer { body($0.baseAddress!) }
    }
}
