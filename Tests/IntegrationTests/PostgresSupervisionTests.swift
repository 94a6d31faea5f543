//===----------------------------------------------------------------------===//
//
// This source file is part of the Switchboard open source project
//
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//

import Foundation
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// The status of `GET /readyz`, or nil when the server does not answer.
private func readyz(_ port: Int) -> Int? {
    guard let socket = try? TestSocket(port: port, timeout: 2) else { return nil }
    guard (try? socket.send("GET /readyz HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n")) != nil else { return nil }
    return try? socket.readResponse().status
}

/// Zombie children of `parent` (from /proc).
private func zombies(of parent: pid_t) -> [pid_t] {
    let entries = (try? FileManager.default.contentsOfDirectory(atPath: "/proc")) ?? []
    return entries.compactMap { pid_t($0) }.filter { pid in
        guard let stat = try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8),
            let close = stat.lastIndex(of: ")")
        else { return false }
        let fields = stat[stat.index(after: close)...].split(separator: " ")
        return fields.count > 1 && fields[0] == "Z" && pid_t(fields[1]) == parent
    }
}

/// Issue 13, item 9: the embedded PostgreSQL is supervised.
@Suite("Embedded PostgreSQL supervision", .serialized)
struct PostgresSupervisionTests {
    @Test(.enabled(if: FileManager.default.isExecutableFile(atPath: serverBinary)))
    func killedPostmasterIsRestartedAndReported() throws {
        let dataDir = FileManager.default.temporaryDirectory.appendingPathComponent("sb-supervise-\(UUID().uuidString)")
            .path
        let logPath = dataDir + "-server.log"
        try FileManager.default.createDirectory(atPath: dataDir, withIntermediateDirectories: true)
        defer {
            try? FileManager.default.removeItem(atPath: dataDir)
            try? FileManager.default.removeItem(atPath: logPath)
        }
        _ = FileManager.default.createFile(atPath: logPath, contents: nil)
        let log = try FileHandle(forWritingTo: URL(fileURLWithPath: logPath))
        let port = freePort()
        let process = Process()
        process.executableURL = URL(fileURLWithPath: serverBinary)
        process.arguments = [
            "serve", "--host", "127.0.0.1", "--port", String(port), "--data-dir", dataDir, "--log-level", "info",
            "--phone-verification", "off",  // the embedded default requires a code; not what this test is about
        ]
        process.standardOutput = FileHandle.nullDevice
        process.standardError = log
        try process.run()
        defer {
            if process.isRunning {
                process.terminate()  // SIGTERM: graceful, stops the embedded PostgreSQL
                process.waitUntilExit()
            }
        }
        var deadline = Date().addingTimeInterval(90)
        while readyz(port) != 200 && Date() < deadline { usleep(100_000) }
        try #require(readyz(port) == 200)
        _ = try makeUser(port, "before")

        let pidText = try String(contentsOfFile: dataDir + "/postgres/postmaster.pid", encoding: .utf8)
        let postmaster = try #require(pid_t(pidText.split(separator: "\n").first ?? ""))
        let linesBefore = try String(contentsOfFile: logPath, encoding: .utf8).split(separator: "\n").count
        kill(postmaster, SIGKILL)

        // /readyz reports the outage ...
        var sawDown = false
        deadline = Date().addingTimeInterval(10)
        while !sawDown && Date() < deadline {
            sawDown = readyz(port) == 503
            if !sawDown { usleep(20_000) }
        }
        #expect(sawDown, "/readyz never answered 503 after the postmaster was killed")
        // ... requests meanwhile fail without flooding the log ...
        let stranger = try ProtocolClient(port: port)
        for _ in 0..<50 { _ = try stranger.call("authenticate", ["token": "not-a-token"]) }
        // ... and the server comes back by itself.
        deadline = Date().addingTimeInterval(60)
        while readyz(port) != 200 && Date() < deadline { usleep(100_000) }
        #expect(readyz(port) == 200, "/readyz did not recover after the postmaster was killed")
        let after = try makeUser(port, "after")
        #expect(after.id > 0)
        #expect(
            zombies(of: process.processIdentifier).isEmpty, "zombie children: \(zombies(of: process.processIdentifier))"
        )

        let lines = try String(contentsOfFile: logPath, encoding: .utf8).split(separator: "\n").dropFirst(linesBefore)
        let aboutIt = lines.filter { $0.contains("PostgreSQL") || $0.contains("connection") || $0.contains("database") }
        #expect(
            aboutIt.count <= 30,
            "\(aboutIt.count) log lines about the outage:\n\(aboutIt.prefix(40).joined(separator: "\n"))")
    }
}
