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

/// The `switchboard` executable built next to the test bundle.
let serverBinary: String = {
    let bundle = URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent()
    var dir = bundle
    for _ in 0..<4 {
        let candidate = dir.appendingPathComponent("switchboard").path
        if FileManager.default.isExecutableFile(atPath: candidate) { return candidate }
        dir.deleteLastPathComponent()
    }
    return bundle.appendingPathComponent("switchboard").path
}()

func freePort() -> Int {
    let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
    defer { close(fd) }
    var address = sockaddr_in()
    address.sin_family = sa_family_t(AF_INET)
    address.sin_addr.s_addr = inet_addr("127.0.0.1")
    _ = withUnsafePointer(to: &address) { $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) } }
    var length = socklen_t(MemoryLayout<sockaddr_in>.size)
    _ = withUnsafeMutablePointer(to: &address) { $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(fd, $0, &length) } }
    return Int(UInt16(bigEndian: address.sin_port))
}

/// Starts the real executable on its embedded PostgreSQL and waits for /readyz.
func launchServer(dataDir: String, port: Int) throws -> Process {
    let process = Process()
    process.executableURL = URL(fileURLWithPath: serverBinary)
    process.arguments = ["serve", "--host", "127.0.0.1", "--port", String(port), "--data-dir", dataDir, "--log-level", "warning"]
    process.standardOutput = FileHandle.nullDevice
    try process.run()
    let deadline = Date().addingTimeInterval(60)
    while Date() < deadline {
        if let socket = try? TestSocket(port: port, timeout: 2) {
            try? socket.send("GET /readyz HTTP/1.1\r\nHost: x\r\n\r\n")
            if (try? socket.readResponse().status) == 200 { return process }
        }
        usleep(100_000)
    }
    process.terminate()
    throw TestSocketError.timeout
}

@Suite("Embedded default and crash recovery", .serialized)
struct CrashRecoveryTests {
    @Test(.enabled(if: FileManager.default.isExecutableFile(atPath: serverBinary)))
    func killDashNineLosesNothingAcknowledged() throws {
        let dataDir = FileManager.default.temporaryDirectory.appendingPathComponent("sb-crash-\(getpid())").path
        defer { try? FileManager.default.removeItem(atPath: dataDir) }
        let port = freePort()
        let first = try launchServer(dataDir: dataDir, port: port)
        let annPhone = freshPhone()
        let bobPhone = freshPhone()
        let ann = try ProtocolClient(port: port)
        _ = try #require(ok(try ann.call("register", ["phone": annPhone, "password": "durable one 1", "display_name": "Ann", "device": "a"])))
        let bob = try ProtocolClient(port: port)
        let bobId = try #require(ok(try bob.call("register", ["phone": bobPhone, "password": "durable two 2", "display_name": "Bob", "device": "b"]))?["user_id"] as? Int)
        let request = try #require((ok(try ann.call("friends.request", ["user_id": bobId]))?["request"] as? [String: Any])?["request_id"] as? Int)
        _ = try #require(ok(try bob.call("friends.accept", ["request_id": request])))
        // Everything above was acknowledged. Kill the server without any chance to clean up.
        kill(first.processIdentifier, SIGKILL)
        first.waitUntilExit()

        let second = try launchServer(dataDir: dataDir, port: port)
        defer {
            second.terminate()  // SIGTERM: graceful, stops the embedded PostgreSQL
            second.waitUntilExit()
        }
        let again = try ProtocolClient(port: port)
        _ = try #require(ok(try again.call("login", ["phone": annPhone, "password": "durable one 1", "device": "a2"])))
        let friends = try #require(ok(try again.call("friends.list"))?["friends"] as? [[String: Any]])
        #expect(friends.map { $0["display_name"] as? String } == ["Bob"])
    }
}
