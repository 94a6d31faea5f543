//===----------------------------------------------------------------------===//
//
// This source file is part of the Switchboard open source project
//
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//

import Foundation

/// Starting the PostgreSQL programs (the embedded server, `initdb`, `pg_dump`, ...): one way for every caller.
enum ChildProcess {
    /// The variables of systemd's protocols that name the main process (`sd_notify(3)`, `sd_watchdog_enabled(3)`,
    /// `sd_listen_fds(3)`): never passed to a child.
    static let systemdVariables: Set<String> = [
        "NOTIFY_SOCKET", "WATCHDOG_USEC", "WATCHDOG_PID", "LISTEN_FDS", "LISTEN_PID", "LISTEN_FDNAMES",
    ]

    /// Spawns `arguments[0]` with stdin from /dev/null and stdout/stderr into `output`, default signal dispositions
    /// and an empty signal mask (the server ignores SIGPIPE; a child must not inherit that), and none of this
    /// process's other descriptors (listeners may lack CLOEXEC; glibc ignores close actions for descriptors closed in
    /// the meantime). `newProcessGroup`: the child leads a process group of its own. systemd's variables addressed to
    /// this process alone (``systemdVariables``) are removed from `environment`: the embedded PostgreSQL, built with
    /// systemd support, would otherwise send its own `READY=1` to the service's notification socket (seen under
    /// systemd: "Got notification message from PID ..., but reception only permitted for main PID").
    static func spawn(
        _ arguments: [String], output: Int32, environment: [String: String], newProcessGroup: Bool = false
    ) throws -> pid_t {
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
        posix_spawn_file_actions_adddup2(&actions, output, 1)
        posix_spawn_file_actions_adddup2(&actions, output, 2)
        let open = (try? FileManager.default.contentsOfDirectory(atPath: "/proc/self/fd")) ?? []
        for descriptor in open.compactMap({ Int32($0) }) where descriptor > 2 && descriptor != output {
            posix_spawn_file_actions_addclose(&actions, descriptor)
        }

        var attributes = posix_spawnattr_t()
        posix_spawnattr_init(&attributes)
        defer { posix_spawnattr_destroy(&attributes) }
        var emptyMask = sigset_t()
        sigemptyset(&emptyMask)
        posix_spawnattr_setsigmask(&attributes, &emptyMask)
        var defaults = sigset_t()
        sigemptyset(&defaults)
        for signal in [SIGPIPE, SIGINT, SIGTERM, SIGHUP, SIGQUIT, SIGCHLD, SIGUSR1, SIGUSR2, SIGALRM] {
            sigaddset(&defaults, signal)
        }
        posix_spawnattr_setsigdefault(&attributes, &defaults)
        var flags = Int32(POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF)
        if newProcessGroup {
            flags |= Int32(POSIX_SPAWN_SETPGROUP)
            posix_spawnattr_setpgroup(&attributes, 0)
        }
        posix_spawnattr_setflags(&attributes, Int16(flags))

        let argv: [UnsafeMutablePointer<CChar>?] = arguments.map { strdup($0) } + [nil]
        defer { for pointer in argv { free(pointer) } }
        let envp: [UnsafeMutablePointer<CChar>?] =
            environment.filter { !systemdVariables.contains($0.key) }.map { strdup("\($0.key)=\($0.value)") } + [nil]
        defer { for pointer in envp { free(pointer) } }

        var pid: pid_t = 0
        let result = posix_spawn(&pid, arguments[0], &actions, &attributes, argv, envp)
        guard result == 0 else { throw EmbeddedPostgresError.spawnFailed(program: arguments[0], errno: result) }
        return pid
    }

    /// Waits for `pid` to exit; its wait status.
    static func wait(_ pid: pid_t) -> Int32 {
        var status: Int32 = 0
        while waitpid(pid, &status, 0) < 0 {
            guard errno == EINTR else { break }
        }
        return status
    }
}
