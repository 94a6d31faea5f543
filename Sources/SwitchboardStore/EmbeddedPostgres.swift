//===----------------------------------------------------------------------===//
//
// This source file is part of the Switchboard open source project
//
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//

internal import CLibpq
public import Foundation
public import Logging
import Synchronization

/// A PostgreSQL server owned by this process, kept inside a data folder and reachable only over a unix socket
/// in that folder (no TCP).
///
/// ## Layout
/// - `<data-dir>/postgres`: the cluster (`initdb` on first start: trust auth, user `switchboard`, UTF8, locale C).
/// - `<data-dir>/run`: the unix socket (`.s.PGSQL.5432`), mode 0700.
/// - `<data-dir>/postgres.log`: the server's output.
///
/// ## Lifecycle
/// ``start()`` initializes the cluster if needed, starts `postgres` as a child process in its own process group,
/// waits until it accepts connections (`PQping`, 30 s), creates the `switchboard` database if absent and returns a
/// libpq connection string. ``stop()`` asks for a fast shutdown (SIGINT: open transactions roll back, committed
/// data is durable), waits up to 30 s (then SIGQUIT, then SIGKILL), and reaps the child.
///
/// When running as root, `initdb` and `postgres` run as the system user `switchboard-pg` (created if absent) via
/// `runuser`; the cluster and socket folders belong to it with mode 0700 and the data folder is made 0711.
///
/// ## Crashes
/// - If `postgres` dies (even `kill -9`) while ``supervise(checkInterval:initialBackoff:maxBackoff:onChange:)``
///   watches it, the child is reaped and the server restarted with back-off; ``isRunning`` says whether it is up.
/// - Without supervision, the next ``start()`` reaps the old child and starts a new server; a
///   stale `postmaster.pid` is handled by PostgreSQL itself, and crash recovery replays the WAL (committed data
///   survives because `fsync` and `synchronous_commit` are on).
/// - If *this* process is killed with `kill -9`, its `postgres` keeps running (own process group, no death
///   signal), re-parented to PID 1. The next ``start()`` finds the orphan through `postmaster.pid` (a live
///   `postgres` process), shuts it down cleanly (SIGINT, wait), then starts its own child. A pid file naming a
///   zombie (an orphan that exited but was never reaped, as PID 1 here does not reap) is removed before starting.
///
/// ## Threading
/// ``start()`` and ``stop()`` block (initdb takes seconds): call them at startup/shutdown, not on a loop queue.
/// They are serialized by a lock, so the type is `Sendable`.
public final class EmbeddedPostgres: Sendable {
    /// The unprivileged system user used when running as root.
    public static let systemUser = "switchboard-pg"
    /// The database created by ``start()``.
    public static let databaseName = "switchboard"
    /// The PostgreSQL role created by `initdb`.
    public static let userName = "switchboard"
    /// The settings passed with `-c` unless overridden.
    public static let defaultSettings: [String: String] = [
        "shared_buffers": "128MB",
        "max_connections": "100",
        "fsync": "on",
        "synchronous_commit": "on",
        "full_page_writes": "on",
        "wal_level": "replica",
        "max_wal_size": "1GB",
        "checkpoint_timeout": "5min",
        "log_min_messages": "warning",
        "log_timezone": "UTC",
        "timezone": "UTC",
    ]

    /// The data folder given at creation (absolute).
    public let dataDirectory: String
    /// The cluster folder, `<data-dir>/postgres`.
    public var clusterDirectory: String { dataDirectory + "/postgres" }
    /// The socket folder, `<data-dir>/run`.
    public var socketDirectory: String { dataDirectory + "/run" }
    /// The server log, `<data-dir>/postgres.log`.
    public var logPath: String { dataDirectory + "/postgres.log" }

    private let logger: Logger
    private let configuredBinaries: PostgresBinaries?
    private let settings: [String: String]
    private let startTimeout: Duration
    // protected by state's lock: the spawned child (postgres itself, or runuser when running as root).
    private let state = Mutex<pid_t?>(nil)
    // protected by its own lock (never held long, so readiness checks on a loop queue do not wait for a start):
    // the postmaster of the running server, nil while none runs.
    private let livePostmaster = Mutex<pid_t?>(nil)
    // protected by its own lock: the supervisor, once ``supervise(initialBackoff:maxBackoff:onChange:)`` ran.
    private let supervisor = Mutex<PostgresSupervisor?>(nil)

    /// Describes an embedded server; nothing starts until ``start()``.
    /// - Parameters:
    ///   - dataDirectory: The folder to keep everything in (created if absent).
    ///   - logger: Receives lifecycle events.
    ///   - binaries: Where `initdb`/`postgres` are; located with ``locateBinaries(environment:versionsRoot:)`` if nil.
    ///   - settings: Server settings that override ``defaultSettings``.
    ///   - startTimeout: How long to wait for the server to accept connections.
    public init(
        dataDirectory: String,
        logger: Logger,
        binaries: PostgresBinaries? = nil,
        settings: [String: String] = [:],
        startTimeout: Duration = .seconds(30)
    ) {
        let absolute =
            dataDirectory.hasPrefix("/")
            ? dataDirectory : FileManager.default.currentDirectoryPath + "/" + dataDirectory
        self.dataDirectory = URL(fileURLWithPath: absolute).standardizedFileURL.path
        var metadataLogger = logger
        metadataLogger[metadataKey: StoreLogKey.dataDirectory] = "\(self.dataDirectory)"
        self.logger = metadataLogger
        self.configuredBinaries = binaries
        self.settings = Self.defaultSettings.merging(settings) { _, new in new }
        self.startTimeout = startTimeout
    }

    // MARK: Binaries

    /// Where PostgreSQL's programs are looked for, in order: `$SWITCHBOARD_PG_BIN` if set (and only there), else
    /// `<versionsRoot>/<version>/bin` newest version first, else the directories of `$PATH`.
    static func binaryDirectories(environment: [String: String], versionsRoot: String) -> [String] {
        if let explicit = environment["SWITCHBOARD_PG_BIN"], !explicit.isEmpty { return [explicit] }
        let versions = (try? FileManager.default.contentsOfDirectory(atPath: versionsRoot)) ?? []
        let sorted = versions.sorted { lhs, rhs in
            let l = lhs.split(separator: ".").map { Int($0) ?? 0 }
            let r = rhs.split(separator: ".").map { Int($0) ?? 0 }
            return r.lexicographicallyPrecedes(l)
        }
        return sorted.map { "\(versionsRoot)/\($0)/bin" }
            + (environment["PATH"] ?? "").split(separator: ":").map(String.init)
    }

    /// Finds `initdb` and `postgres`: in `$SWITCHBOARD_PG_BIN` if set (and only there), else in
    /// `<versionsRoot>/<version>/bin` newest version first, else on `$PATH`.
    /// - Parameters:
    ///   - environment: The variables to read (`SWITCHBOARD_PG_BIN`, `PATH`); injectable for tests.
    ///   - versionsRoot: The Debian layout root.
    /// - Throws: ``EmbeddedPostgresError/binariesNotFound(searched:)`` (its message says `apt-get install postgresql`).
    public static func locateBinaries(
        environment: [String: String] = ProcessInfo.processInfo.environment,
        versionsRoot: String = "/usr/lib/postgresql"
    ) throws -> PostgresBinaries {
        let candidates = binaryDirectories(environment: environment, versionsRoot: versionsRoot)
        for directory in candidates {
            let binaries = PostgresBinaries(directory: directory)
            if access(binaries.initdb, X_OK) == 0, access(binaries.postgres, X_OK) == 0 {
                return binaries
            }
        }
        throw EmbeddedPostgresError.binariesNotFound(searched: candidates)
    }

    // MARK: Start and stop

    /// Starts the server (initializing the cluster on first run) and returns a connection string for the
    /// `switchboard` database. Returns at once if this instance's server is already running.
    /// - Throws: ``EmbeddedPostgresError`` or ``PostgresError``.
    public func start() throws -> String {
        try state.withLock { child in
            if let pid = child {
                if Self.reap(pid) == nil, PQping(pingString()) == PQPING_OK {
                    return connectionString()
                }
                child = nil
            }
            let binaries = try configuredBinaries ?? Self.locateBinaries()
            try prepareDirectories()
            let runAsUser = geteuid() == 0 ? Self.systemUser : nil
            if let runAsUser { try ensureSystemUser(runAsUser) }
            if !FileManager.default.fileExists(atPath: clusterDirectory + "/PG_VERSION") {
                try initialize(binaries: binaries, runAsUser: runAsUser)
            }
            if let runAsUser { try handOver(to: runAsUser) }
            try stopOrphan()
            var attempt = 0
            while true {
                attempt += 1
                let pid = try launch(binaries: binaries, runAsUser: runAsUser)
                do {
                    try waitUntilReady(child: pid)
                    child = pid
                    break
                } catch let error as EmbeddedPostgresError {
                    // A just-killed server's backends may still hold the old shared memory for a moment.
                    guard attempt < 5 else { throw error }
                    logger.info("PostgreSQL exited during start; retrying", metadata: [StoreLogKey.event: "retry"])
                    Thread.sleep(forTimeInterval: 1)
                }
            }
            logger.info("Embedded PostgreSQL started", metadata: [StoreLogKey.pid: "\(child ?? 0)"])
            do {
                try createDatabaseIfNeeded()
            } catch {
                // Not usable: do not leave it running behind a failed start.
                if let pid = child { shutDown(child: pid) }
                child = nil
                throw error
            }
            let postmaster = postmasterPID() ?? child
            livePostmaster.withLock { $0 = postmaster }
            return connectionString()
        }
    }

    /// Fast shutdown (SIGINT), waits up to 30 s (then SIGQUIT, then SIGKILL) and reaps the child. Does nothing if
    /// this instance did not start a server.
    public func stop() {
        supervisor.withLock { $0 }?.stop()
        livePostmaster.withLock { $0 = nil }
        let stopped = state.withLock { child -> Bool in
            guard let pid = child else { return false }
            child = nil
            shutDown(child: pid)
            return true
        }
        if stopped { logger.info("Embedded PostgreSQL stopped", metadata: [StoreLogKey.event: "stopped"]) }
    }

    /// Fast shutdown of `pid` (SIGINT, then SIGQUIT after 30 s, then SIGKILL after 10 s more) and reaps it.
    /// Called with the state lock held.
    private func shutDown(child pid: pid_t) {
        if Self.reap(pid) != nil { return }
        let postmaster = postmasterPID() ?? pid
        kill(postmaster, SIGINT)
        if waitForExit(child: pid, seconds: 30) { return }
        logger.warning(
            "PostgreSQL did not stop in 30 s; sending SIGQUIT",
            metadata: [StoreLogKey.pid: "\(postmaster)"]
        )
        kill(postmaster, SIGQUIT)
        if waitForExit(child: pid, seconds: 10) { return }
        kill(postmaster, SIGKILL)
        kill(pid, SIGKILL)
        _ = waitForExit(child: pid, seconds: 10)
    }

    /// Whether the server this instance started is running: started, not stopped, and its postmaster alive.
    /// Never waits for a start in progress (cheap enough for every `/readyz`).
    public var isRunning: Bool {
        guard let pid = livePostmaster.withLock({ $0 }) else { return false }
        return kill(pid, 0) == 0 && Self.processState(pid) != "Z"
    }

    /// Watches the server after ``start()``: when its process exits (a crash, `kill -9`), the child is reaped
    /// (no zombie), and the server is started again, at once and then after `initialBackoff` seconds doubling
    /// to `maxBackoff` while starts fail. Logs once per change of state (down, up again), not per attempt.
    /// ``stop()`` ends the supervision. Runs on a private queue; calling it again does nothing.
    /// - Parameter onChange: Called on that queue with `false` when the server went down and `true` when it is
    ///   back.
    public func supervise(
        checkInterval: Double = 0.5, initialBackoff: Double = 0.5, maxBackoff: Double = 30,
        onChange: @escaping @Sendable (Bool) -> Void = { _ in }
    ) {
        let created = supervisor.withLock { existing -> PostgresSupervisor? in
            guard existing == nil else { return nil }
            let new = PostgresSupervisor(
                postgres: self, logger: logger, checkInterval: checkInterval, initialBackoff: initialBackoff,
                maxBackoff: maxBackoff, onChange: onChange)
            existing = new
            return new
        }
        created?.begin()
    }

    /// Reaps the child if it exited; returns its wait status then (the server is down), nil while it runs or
    /// when no server was started. Does not wait for a start in progress.
    func reapExitedChild() -> Int32? {
        guard
            let result = state.withLockIfAvailable({ child -> Int32? in
                guard let pid = child, let status = Self.reap(pid) else { return nil }
                child = nil
                return status
            })
        else { return nil }
        if result != nil { livePostmaster.withLock { $0 = nil } }
        return result
    }

    /// The postmaster's process id from `postmaster.pid`, if the file exists.
    public func postmasterPID() -> pid_t? {
        guard let text = try? String(contentsOfFile: clusterDirectory + "/postmaster.pid", encoding: .utf8),
            let line = text.split(separator: "\n").first, let pid = pid_t(line.trimmingCharacters(in: .whitespaces))
        else { return nil }
        return pid
    }

    /// A libpq connection string for `database` over this server's unix socket.
    public func connectionString(database: String = EmbeddedPostgres.databaseName) -> String {
        "host=\(Self.quote(socketDirectory)) port=5432 user=\(Self.userName) dbname=\(Self.quote(database))"
    }

    // MARK: Internals

    /// Whether a PostgreSQL answers on this data folder's socket (a running server's, whoever started it). Its
    /// ``connectionString(database:)`` then reaches it without starting (or stopping) anything.
    public func isAcceptingConnections() -> Bool {
        FileManager.default.fileExists(atPath: socketDirectory + "/.s.PGSQL.5432") && PQping(pingString()) == PQPING_OK
    }

    private func pingString() -> String {
        connectionString(database: "postgres") + " connect_timeout=2"
    }

    private func prepareDirectories() throws {
        let manager = FileManager.default
        try manager.createDirectory(atPath: dataDirectory, withIntermediateDirectories: true)
        // A cluster folder without PG_VERSION is a half-finished initdb: start over.
        if manager.fileExists(atPath: clusterDirectory),
            !manager.fileExists(atPath: clusterDirectory + "/PG_VERSION")
        {
            try manager.removeItem(atPath: clusterDirectory)
        }
        try manager.createDirectory(atPath: socketDirectory, withIntermediateDirectories: true)
        chmod(socketDirectory, 0o700)
        // Others (the postgres user) must traverse the data folder, not list it.
        chmod(dataDirectory, 0o711)
    }

    private func ensureSystemUser(_ user: String) throws {
        if getpwnam(user) != nil { return }
        let useradd =
            [String](["/usr/sbin/useradd", "/sbin/useradd"]).first { access($0, X_OK) == 0 } ?? "/usr/sbin/useradd"
        try runToCompletion([useradd, "--system", "--no-create-home", "--shell", "/usr/sbin/nologin", user])
        logger.info("Created system user for PostgreSQL", metadata: ["user": "\(user)"])
    }

    private func handOver(to user: String) throws {
        let chown = [String](["/usr/bin/chown", "/bin/chown"]).first { access($0, X_OK) == 0 } ?? "/bin/chown"
        try runToCompletion([chown, "-R", "\(user):\(user)", clusterDirectory, socketDirectory])
        chmod(clusterDirectory, 0o700)
        chmod(socketDirectory, 0o700)
    }

    private func initialize(binaries: PostgresBinaries, runAsUser: String?) throws {
        let manager = FileManager.default
        try manager.createDirectory(atPath: clusterDirectory, withIntermediateDirectories: true)
        chmod(clusterDirectory, 0o700)
        if let runAsUser { try handOver(to: runAsUser) }
        logger.info("Initializing PostgreSQL cluster", metadata: [StoreLogKey.event: "initdb"])
        try runToCompletion(
            asUser: runAsUser,
            [
                binaries.initdb, "-D", clusterDirectory, "--auth=trust", "-U", Self.userName, "--encoding=UTF8",
                "--locale=C",
            ]
        )
    }

    /// Shuts down a server left running on this cluster by a previous (killed) process.
    private func stopOrphan() throws {
        guard let pid = postmasterPID() else { return }
        switch Self.processState(pid) {
        case nil:
            return  // Gone: PostgreSQL treats the pid file as stale.
        case "Z":
            logger.info("Removing pid file of an unreaped PostgreSQL", metadata: [StoreLogKey.pid: "\(pid)"])
            try? FileManager.default.removeItem(atPath: clusterDirectory + "/postmaster.pid")
            return
        default:
            guard Self.commandLine(pid).contains("postgres") else { return }
        }
        logger.warning("Stopping an orphaned PostgreSQL on this data folder", metadata: [StoreLogKey.pid: "\(pid)"])
        kill(pid, SIGINT)
        let deadline = ContinuousClock.now + .seconds(30)
        while ContinuousClock.now < deadline {
            let processState = Self.processState(pid)
            if processState == nil || processState == "Z" { break }
            Thread.sleep(forTimeInterval: 0.05)
        }
        if Self.processState(pid) == "Z" {
            try? FileManager.default.removeItem(atPath: clusterDirectory + "/postmaster.pid")
        }
    }

    private func launch(binaries: PostgresBinaries, runAsUser: String?) throws -> pid_t {
        var arguments = [binaries.postgres, "-D", clusterDirectory, "-k", socketDirectory]
        let fixed = ["listen_addresses": "", "unix_socket_permissions": "0700", "port": "5432"]
        for (key, value) in settings.merging(fixed, uniquingKeysWith: { _, new in new }).sorted(by: { $0.key < $1.key })
        {
            arguments += ["-c", "\(key)=\(value)"]
        }
        return try spawn(asUser: runAsUser, arguments, newProcessGroup: true)
    }

    private func waitUntilReady(child: pid_t) throws {
        let deadline = ContinuousClock.now + startTimeout
        let ping = pingString()
        while ContinuousClock.now < deadline {
            if let status = Self.reap(child) {
                throw EmbeddedPostgresError.startFailed(
                    reason: "postgres exited with status \(status)",
                    logPath: logPath
                )
            }
            if PQping(ping) == PQPING_OK { return }
            Thread.sleep(forTimeInterval: 0.05)
        }
        kill(postmasterPID() ?? child, SIGQUIT)
        _ = waitForExit(child: child, seconds: 10)
        throw EmbeddedPostgresError.startFailed(reason: "no connection within \(startTimeout)", logPath: logPath)
    }

    private func createDatabaseIfNeeded() throws {
        let connection = try PostgresConnection(
            connectionString: connectionString(database: "postgres"),
            logger: logger
        )
        try connection.queue.sync {
            defer { connection.close() }
            let existing = try connection.query(
                "SELECT 1 FROM pg_database WHERE datname = $1",
                [.text(Self.databaseName)]
            )
            if existing.isEmpty {
                do {
                    try connection.executeScript("CREATE DATABASE \(Self.databaseName)")
                } catch let error as PostgresError where error.sqlState == "42P04" {
                    // Created concurrently: fine.
                }
            }
        }
    }

    private func waitForExit(child: pid_t, seconds: Int) -> Bool {
        let deadline = ContinuousClock.now + .seconds(seconds)
        while ContinuousClock.now < deadline {
            if Self.reap(child) != nil { return true }
            Thread.sleep(forTimeInterval: 0.02)
        }
        return false
    }

    /// Reaps `pid` if it exited; returns its wait status, or nil while it runs.
    private static func reap(_ pid: pid_t) -> Int32? {
        var status: Int32 = 0
        let result = waitpid(pid, &status, WNOHANG)
        if result == pid { return status }
        if result < 0, errno == ECHILD { return -1 }
        return nil
    }

    /// The state letter from `/proc/<pid>/stat` (`R`, `S`, `Z`, ...), or nil if there is no such process.
    private static func processState(_ pid: pid_t) -> String? {
        guard let stat = try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8),
            let close = stat.lastIndex(of: ")")
        else { return nil }
        let rest = stat[stat.index(after: close)...].trimmingCharacters(in: .whitespaces)
        return rest.first.map { String($0) }
    }

    private static func commandLine(_ pid: pid_t) -> String {
        guard let data = FileManager.default.contents(atPath: "/proc/\(pid)/cmdline") else { return "" }
        return String(decoding: data.map { $0 == 0 ? UInt8(ascii: " ") : $0 }, as: UTF8.self)
    }

    private static func quote(_ value: String) -> String {
        "'" + value.replacingOccurrences(of: "\\", with: "\\\\").replacingOccurrences(of: "'", with: "\\'") + "'"
    }

    private func runToCompletion(asUser user: String? = nil, _ arguments: [String]) throws {
        let status = ChildProcess.wait(try spawn(asUser: user, arguments, newProcessGroup: false))
        if status != 0 {
            throw EmbeddedPostgresError.commandFailed(program: arguments[0], status: status, logPath: logPath)
        }
    }

    /// Spawns a program (as `user` through runuser when given) with its output appended to `postgres.log`
    /// (`ChildProcess.spawn`: stdin from /dev/null, default signals, none of the server's sockets), without the
    /// caller's `PG*` variables.
    private func spawn(asUser user: String?, _ command: [String], newProcessGroup: Bool) throws -> pid_t {
        var arguments = command
        if let user {
            let runuser =
                [String](["/usr/sbin/runuser", "/sbin/runuser"]).first { access($0, X_OK) == 0 } ?? "/usr/sbin/runuser"
            arguments = [runuser, "-u", user, "--"] + command
        }
        let log = open(logPath, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0o640)
        guard log >= 0 else { throw EmbeddedPostgresError.spawnFailed(program: logPath, errno: errno) }
        defer { close(log) }
        let environment = ProcessInfo.processInfo.environment.filter { !$0.key.hasPrefix("PG") }
        return try ChildProcess.spawn(
            arguments, output: log, environment: environment, newProcessGroup: newProcessGroup)
    }
}
