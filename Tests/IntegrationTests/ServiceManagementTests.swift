//===----------------------------------------------------------------------===//
//
// This source file is part of the Switchboard open source project
//
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//

import Foundation
import SwitchboardServer
import Synchronization
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// A datagram socket standing in for systemd's `$NOTIFY_SOCKET` (a path in a temporary folder, or an abstract
/// name): collects the notifications the server sends.
final class NotifyListener {
    let address: String
    private let fd: Int32
    private let folder: String?

    /// - Parameter abstract: listen on an abstract name (`@...`) instead of a path.
    init(abstract: Bool = false) throws {
        fd = socket(AF_UNIX, Int32(SOCK_DGRAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard fd >= 0 else { throw TestSocketError.timeout }
        var bytes: [UInt8]
        if abstract {
            address = "@switchboard-notify-test-\(getpid())-\(Int.random(in: 0..<1_000_000))"
            folder = nil
            bytes = Array(address.utf8)
            bytes[0] = 0
        } else {
            let dir = FileManager.default.temporaryDirectory.appendingPathComponent(
                "sb-notify-\(getpid())-\(Int.random(in: 0..<1_000_000))"
            ).path
            try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
            folder = dir
            address = dir + "/notify"
            bytes = Array(address.utf8) + [0]
        }
        var sockaddress = sockaddr_un()
        sockaddress.sun_family = sa_family_t(AF_UNIX)
        withUnsafeMutableBytes(of: &sockaddress.sun_path) { raw in for (i, b) in bytes.enumerated() { raw[i] = b } }
        let length = socklen_t(MemoryLayout<sockaddr_un>.offset(of: \.sun_path)! + bytes.count)
        let bound = withUnsafePointer(to: &sockaddress) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, length) }
        }
        guard bound == 0 else {
            close(fd)
            throw TestSocketError.timeout
        }
    }

    deinit {
        close(fd)
        if let folder { try? FileManager.default.removeItem(atPath: folder) }
    }

    /// The next datagram, or nil after `timeout` seconds.
    func receive(timeout: Double) -> String? {
        var poller = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
        guard poll(&poller, 1, Int32(timeout * 1000)) == 1 else { return nil }
        var buffer = [UInt8](repeating: 0, count: 4096)
        let n = buffer.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, 0) }
        return n > 0 ? String(decoding: buffer[0..<n], as: UTF8.self) : nil
    }

    /// Waits (at most `timeout` seconds) for a datagram with the line `line`; every datagram seen on the way.
    func wait(forLine line: String, timeout: Double) -> (found: Bool, seen: [String]) {
        let deadline = Date().addingTimeInterval(timeout)
        var seen: [String] = []
        while Date() < deadline {
            guard let message = receive(timeout: max(0.01, deadline.timeIntervalSinceNow)) else { continue }
            seen.append(message)
            if message.split(separator: "\n").contains(Substring(line)) { return (true, seen) }
        }
        return (false, seen)
    }
}

/// The `[Service]` settings of deploy/switchboard.service that restarting depends on.
struct ServiceUnit {
    var settings: [String: String] = [:]

    init(path: String) throws {
        let text = try String(contentsOfFile: path, encoding: .utf8)
        var section = ""
        for raw in text.split(separator: "\n") {
            let line = raw.trimmingCharacters(in: .whitespaces)
            if line.isEmpty || line.hasPrefix("#") || line.hasPrefix(";") { continue }
            if line.hasPrefix("[") {
                section = line
                continue
            }
            guard section == "[Service]", let eq = line.firstIndex(of: "=") else { continue }
            settings[String(line[..<eq])] = String(line[line.index(after: eq)...])
        }
    }

    /// A systemd time span (`2s`, `500ms`, `1min`, `3`: seconds) in seconds.
    static func seconds(_ span: String) -> Double? {
        let units: [(String, Double)] = [("ms", 0.001), ("min", 60), ("s", 1), ("m", 60), ("h", 3600)]
        for (suffix, factor) in units where span.hasSuffix(suffix) {
            return Double(span.dropLast(suffix.count)).map { $0 * factor }
        }
        return Double(span)
    }

    /// Whether systemd restarts the service after this exit (systemd.service(5), the table under `Restart=`).
    /// SIGHUP, SIGINT, SIGTERM and SIGPIPE count as clean, as does exit status 0.
    func restarts(after reason: Process.TerminationReason, status: Int32) -> Bool {
        let clean: Bool
        switch reason {
        case .exit: clean = status == 0
        case .uncaughtSignal: clean = [SIGHUP, SIGINT, SIGTERM, SIGPIPE].contains(status)
        @unknown default: clean = false
        }
        switch settings["Restart"] ?? "no" {
        case "always": return true
        case "on-success": return clean
        case "on-failure": return !clean
        case "on-abnormal": return reason == .uncaughtSignal && !clean
        case "on-abort": return reason == .uncaughtSignal && !clean
        default: return false
        }
    }
}

let unitPath = repositoryRoot.appendingPathComponent("deploy/switchboard.service").path

/// Issue 21, item 2: the systemd unit, `sd_notify` readiness and restarting after a crash.
@Suite("Service management", .serialized)
struct ServiceManagementTests {
    // MARK: sd_notify

    @Test func notificationMessagesAreNewlineSeparatedAssignmentsOnOneLineEach() {
        #expect(
            SystemdNotifier.message([("READY", "1"), ("STATUS", "listening on port 8080")])
                == "READY=1\nSTATUS=listening on port 8080")
        #expect(
            SystemdNotifier.message([("STATUS", "could not start:\nport in use\r")])
                == "STATUS=could not start: port in use ")
        #expect(SystemdNotifier.message([("WATCHDOG", "1")]) == "WATCHDOG=1")
    }

    @Test func notifierNeedsAUsableSocketAddress() {
        #expect(SystemdNotifier(environment: [:]) == nil)
        #expect(SystemdNotifier(environment: ["NOTIFY_SOCKET": ""]) == nil)
        #expect(SystemdNotifier(environment: ["NOTIFY_SOCKET": "relative/path"]) == nil)
        #expect(SystemdNotifier(environment: ["NOTIFY_SOCKET": "/" + String(repeating: "x", count: 200)]) == nil)
        #expect(
            SystemdNotifier(environment: ["NOTIFY_SOCKET": "/run/systemd/notify"])?.socketPath == "/run/systemd/notify")
        #expect(SystemdNotifier(environment: ["NOTIFY_SOCKET": "@abstract"]) != nil)
    }

    @Test(arguments: [false, true])
    func notificationsArriveAsOneDatagramEach(abstract: Bool) throws {
        let listener = try NotifyListener(abstract: abstract)
        let notifier = try #require(SystemdNotifier(environment: ["NOTIFY_SOCKET": listener.address]))
        #expect(notifier.ready(status: "listening on port 1"))
        #expect(listener.receive(timeout: 5) == "READY=1\nSTATUS=listening on port 1")
        #expect(notifier.watchdogPing())
        #expect(listener.receive(timeout: 5) == "WATCHDOG=1")
        #expect(notifier.stopping(status: "draining connections"))
        #expect(listener.receive(timeout: 5) == "STOPPING=1\nSTATUS=draining connections")
    }

    @Test func watchdogTimeoutComesFromTheEnvironment() {
        #expect(SystemdWatchdog.timeout(environment: [:]) == nil)
        #expect(SystemdWatchdog.timeout(environment: ["WATCHDOG_USEC": "0"]) == nil)
        #expect(SystemdWatchdog.timeout(environment: ["WATCHDOG_USEC": "abc"]) == nil)
        #expect(SystemdWatchdog.timeout(environment: ["WATCHDOG_USEC": "30000000"], pid: 7) == 30)
        #expect(SystemdWatchdog.timeout(environment: ["WATCHDOG_USEC": "30000000", "WATCHDOG_PID": "7"], pid: 7) == 30)
        #expect(
            SystemdWatchdog.timeout(environment: ["WATCHDOG_USEC": "30000000", "WATCHDOG_PID": "8"], pid: 7) == nil)
    }

    /// With an injected clock and probe: a ping at once, then one per half timeout while the probe answers, none
    /// while it does not (a wedged loop), and pings again once it answers.
    @Test func watchdogPingsAtHalfTheTimeoutOnlyWhileTheProbeAnswers() {
        let clock = Mutex<Double>(100)
        let pings = Mutex(0)
        let pending = Mutex<[@Sendable () -> Void]>([])
        let answerProbes = Mutex(true)
        let watchdog = SystemdWatchdog(
            timeout: 10, clock: { clock.withLock { $0 } },
            probe: { answered in
                if answerProbes.withLock({ $0 }) { answered() } else { pending.withLock { $0.append(answered) } }
            },
            ping: { pings.withLock { $0 += 1 } })
        #expect(watchdog.pingInterval == 5)
        #expect(watchdog.tick())  // the first tick pings
        #expect(pings.withLock { $0 } == 1)
        clock.withLock { $0 = 104.9 }
        #expect(!watchdog.tick())  // not yet half the timeout
        clock.withLock { $0 = 105 }
        #expect(watchdog.tick())
        #expect(pings.withLock { $0 } == 2)
        // A loop stops answering: the probe posted at 105 never runs, so no more pings.
        answerProbes.withLock { $0 = false }
        clock.withLock { $0 = 110 }
        #expect(watchdog.tick())  // the probe of 105 had answered
        for t in [115.0, 120, 125, 130] {
            clock.withLock { $0 = t }
            #expect(!watchdog.tick())
        }
        #expect(pings.withLock { $0 } == 3)
        #expect(pending.withLock { $0.count } == 1)  // only one probe outstanding, not one per tick
        // The loop recovers.
        answerProbes.withLock { $0 = true }
        for answered in pending.withLock({ p in
            defer { p = [] }; return p
        }) { answered() }
        #expect(watchdog.tick())
        #expect(pings.withLock { $0 } == 4)
    }

    // MARK: the unit

    /// `systemd-analyze verify` accepts deploy/switchboard.service (no running systemd needed). ExecStart points
    /// at the built executable for the check, since verify requires the command to exist.
    @Test func unitFilePassesSystemdAnalyzeVerify() throws {
        try #require(
            FileManager.default.isExecutableFile(atPath: "/usr/bin/systemd-analyze"),
            "systemd-analyze is missing: scripts/deps.sh --test installs the systemd package")
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("sb-unit-\(getpid())")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let unit = try String(contentsOfFile: unitPath, encoding: .utf8)
        #expect(unit.contains("ExecStart=/usr/local/bin/switchboard serve"))
        let binary = FileManager.default.isExecutableFile(atPath: serverBinary) ? serverBinary : "/bin/true"
        let copy = folder.appendingPathComponent("switchboard.service")
        try unit.replacingOccurrences(of: "ExecStart=/usr/local/bin/switchboard", with: "ExecStart=\(binary)")
            .write(to: copy, atomically: true, encoding: .utf8)
        let result = try runProcess("/usr/bin/systemd-analyze", ["verify", copy.path])
        #expect(result.status == 0, "\(result.output)")
        // Unknown keys and bad values are only warnings (status 0): none may mention the unit.
        let complaints = result.output.split(separator: "\n").filter { $0.contains("switchboard.service") }
        #expect(complaints.isEmpty, "\(complaints)")
        // The hardening: systemd's own exposure score of the unit (0 best, 10 worst; "OK" up to 3.9).
        let security = try runProcess("/usr/bin/systemd-analyze", ["security", "--offline=true", copy.path])
        let overall = try #require(
            security.output.split(separator: "\n").first {
                $0.contains("Overall exposure level for switchboard.service:")
            },
            "\(security.output)")
        let score = try #require(
            overall.split(separator: ":").last?.split(separator: " ").first.flatMap { Double($0) }, "\(overall)")
        #expect(score <= 2.5, "\(overall)")
    }

    @Test func unitRestartsOnFailureWithinSecondsAsANotifyServiceWithLimitsAndHardening() throws {
        let unit = try ServiceUnit(path: unitPath)
        #expect(unit.settings["Type"] == "notify")
        #expect(unit.settings["Restart"] == "on-failure")
        let restartSec = try #require(unit.settings["RestartSec"].flatMap(ServiceUnit.seconds))
        #expect(restartSec > 0 && restartSec <= 10)
        #expect(unit.settings["User"] == "switchboard" || unit.settings["DynamicUser"] == "yes")
        #expect(unit.settings["StateDirectory"] == "switchboard")
        #expect(unit.settings["LimitNOFILE"] != nil)
        #expect(unit.settings["NoNewPrivileges"] == "yes")
        #expect(unit.settings["ProtectSystem"] == "strict")
        #expect(unit.settings["ReadWritePaths"] == "/var/lib/switchboard")
        #expect(unit.settings["PrivateTmp"] == "yes")
        #expect(unit.settings["EnvironmentFile"]?.hasSuffix("/etc/switchboard/switchboard.env") == true)
        #expect(unit.settings["WatchdogSec"].flatMap(ServiceUnit.seconds) != nil)
        // The restart policy as systemd applies it.
        #expect(unit.restarts(after: .uncaughtSignal, status: SIGKILL))
        #expect(unit.restarts(after: .uncaughtSignal, status: SIGABRT))  // a watchdog timeout, a crash
        #expect(unit.restarts(after: .exit, status: 1))
        #expect(!unit.restarts(after: .exit, status: 0))
        #expect(!unit.restarts(after: .uncaughtSignal, status: SIGTERM))
    }

    /// Docker's side: the image's HEALTHCHECK (with a start period for the first initdb) and, in both compose
    /// files, a restart policy that restarts the server whenever it exits (a kill -9 included) and a health check.
    @Test func dockerImagesRestartAndCheckHealth() throws {
        let dockerfile = try String(
            contentsOf: repositoryRoot.appendingPathComponent("docker/Dockerfile"), encoding: .utf8)
        let check = try #require(dockerfile.split(separator: "\n").first { $0.hasPrefix("HEALTHCHECK ") })
        #expect(check.contains("--start-period="))
        #expect(check.contains("\"healthcheck\""))
        let script = "import json,sys,yaml; print(json.dumps(yaml.safe_load(open(sys.argv[1]))))"
        for (file, services) in [
            ("docker/compose.yaml", ["switchboard"]), ("docker/cluster.yaml", ["switchboard-1", "switchboard-2"]),
        ] {
            let result = try runProcess(
                "/usr/bin/env", ["python3", "-c", script, repositoryRoot.appendingPathComponent(file).path])
            #expect(result.status == 0, "\(file): \(result.output)")
            let json = try #require(try JSONSerialization.jsonObject(with: Data(result.output.utf8)) as? [String: Any])
            let all = try #require(json["services"] as? [String: Any])
            for name in services {
                let service = try #require(all[name] as? [String: Any], "\(file): no \(name)")
                #expect(["always", "unless-stopped"].contains(service["restart"] as? String), "\(file) \(name)")
                let health = try #require(service["healthcheck"] as? [String: Any], "\(file) \(name)")
                let test = (health["test"] as? [String])?.joined(separator: " ") ?? ""
                #expect(test.contains("switchboard healthcheck"), "\(file) \(name): \(test)")
            }
        }
    }

    /// `kill -9` of the server and back to ready within the budget (the apps ask for a minute): under systemd when
    /// the test machine runs it (`systemctl is-system-running`), else — as here, in a container — through a
    /// supervisor that applies the unit's own `Restart=` and `RestartSec=` (what systemd, or Docker's
    /// `restart: unless-stopped`, does), listens on a `NOTIFY_SOCKET` for `READY=1` like systemd's
    /// `Type=notify`, and then checks `/readyz` answers 200.
    @Test(.enabled(if: FileManager.default.isExecutableFile(atPath: serverBinary)))
    func killDashNineAndTheServiceIsBackAndReadyWithinTheBudget() throws {
        let unit = try ServiceUnit(path: unitPath)
        let restartSec = try #require(unit.settings["RestartSec"].flatMap(ServiceUnit.seconds))
        let listener = try NotifyListener()
        let dataDir = FileManager.default.temporaryDirectory.appendingPathComponent("sb-service-\(getpid())").path
        defer { try? FileManager.default.removeItem(atPath: dataDir) }
        let port = freePort()

        func start() throws -> Process {
            let process = Process()
            process.executableURL = URL(fileURLWithPath: serverBinary)
            process.arguments = [
                "serve", "--host", "127.0.0.1", "--port", String(port), "--data-dir", dataDir, "--log-level", "warning",
            ]
            var environment = ProcessInfo.processInfo.environment
            environment["NOTIFY_SOCKET"] = listener.address
            environment["WATCHDOG_USEC"] = "2000000"
            environment.removeValue(forKey: "WATCHDOG_PID")
            process.environment = environment
            process.standardOutput = FileHandle.nullDevice
            try process.run()
            return process
        }
        func readyz() -> Int? {
            guard let socket = try? TestSocket(port: port, timeout: 2) else { return nil }
            try? socket.send("GET /readyz HTTP/1.1\r\nHost: x\r\n\r\n")
            return try? socket.readResponse().status
        }

        var server = try start()
        defer {
            if server.isRunning {
                server.terminate()
                server.waitUntilExit()
            }
        }
        let firstReady = listener.wait(forLine: "READY=1", timeout: 90)
        #expect(firstReady.found, "no READY=1: \(firstReady.seen)")
        // READY=1 comes once the server listens: /readyz answers at once, without polling for it.
        #expect(readyz() == 200)
        // The images' HEALTHCHECK command, as they spell it (`switchboard healthcheck [--path /readyz]`).
        let health = try runProcess(serverBinary, ["healthcheck", "--port", String(port)], timeout: 20)
        #expect(health.status == 0, "\(health.output)")
        let ready = try runProcess(
            serverBinary, ["healthcheck", "--port", String(port), "--path", "/readyz"], timeout: 20)
        #expect(ready.status == 0, "\(ready.output)")
        let missing = try runProcess(
            serverBinary, ["healthcheck", "--port", String(port), "--path", "/nothing-here"], timeout: 20)
        #expect(missing.status == 1, "\(missing.output)")
        // WATCHDOG_USEC=2 s: pings every second while the loops answer.
        #expect(listener.wait(forLine: "WATCHDOG=1", timeout: 10).found)

        let killedAt = Date()
        kill(server.processIdentifier, SIGKILL)
        server.waitUntilExit()
        #expect(server.terminationReason == .uncaughtSignal && server.terminationStatus == SIGKILL)
        #expect(unit.restarts(after: server.terminationReason, status: server.terminationStatus))
        usleep(useconds_t(restartSec * 1e6))
        server = try start()
        let again = listener.wait(forLine: "READY=1", timeout: 60)
        #expect(again.found, "no READY=1 after the restart: \(again.seen)")
        #expect(readyz() == 200)
        let back = Date().timeIntervalSince(killedAt)
        // The budget of the apps (a minute), not a speed measurement: seconds in practice.
        #expect(back < 60, "back and ready after \(back) s")

        // A clean stop: STOPPING=1, exit 0, and the policy does not restart it.
        server.terminate()
        #expect(listener.wait(forLine: "STOPPING=1", timeout: 30).found)
        server.waitUntilExit()
        #expect(server.terminationReason == .exit && server.terminationStatus == 0)
        #expect(!unit.restarts(after: server.terminationReason, status: server.terminationStatus))
        #expect(try runProcess(serverBinary, ["healthcheck", "--port", String(port)], timeout: 20).status == 1)
    }
}
