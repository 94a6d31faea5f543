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
    _ = withUnsafePointer(to: &address) {
        $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
    }
    var length = socklen_t(MemoryLayout<sockaddr_in>.size)
    _ = withUnsafeMutablePointer(to: &address) {
        $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(fd, $0, &length) }
    }
    return Int(UInt16(bigEndian: address.sin_port))
}

/// Starts the real executable on its embedded PostgreSQL and waits for /readyz. Phone verification is off unless
/// `embeddedDefaults` (the embedded default, `required` with codes in the log, is not what most of these tests are
/// about); `log`: a file for the server's output and log (else the output is discarded).
func launchServer(
    dataDir: String, port: Int, extraArguments: [String] = [], embeddedDefaults: Bool = false, log: FileHandle? = nil
) throws -> Process {
    let process = Process()
    process.executableURL = URL(fileURLWithPath: serverBinary)
    process.arguments =
        ["serve", "--host", "127.0.0.1", "--port", String(port), "--data-dir", dataDir, "--log-level", "warning"]
        + (embeddedDefaults ? ["--log-level", "notice"] : ["--phone-verification", "off"]) + extraArguments
    process.standardOutput = log ?? FileHandle.nullDevice
    if let log { process.standardError = log }  // the log goes to stderr
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
        _ = try #require(
            ok(
                try ann.call(
                    "register", ["phone": annPhone, "password": "durable one 1", "display_name": "Ann", "device": "a"]))
        )
        let bob = try ProtocolClient(port: port)
        let bobRegistration: [String: Any] = [
            "phone": bobPhone, "password": "durable two 2", "display_name": "Bob", "device": "b",
        ]
        let bobId = try #require(ok(try bob.call("register", bobRegistration))?["user_id"] as? Int)
        let request = try #require(
            (ok(try ann.call("friends.request", ["user_id": bobId]))?["request"] as? [String: Any])?["request_id"]
                as? Int)
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

    /// `kill -9` during a sustained send load from many clients: after a restart every acknowledged message
    /// is in history exactly once, with the sequence number of its acknowledgement, and sequence numbers
    /// have no gaps.
    @Test(.enabled(if: FileManager.default.isExecutableFile(atPath: serverBinary)))
    func killDashNineDuringSendLoadKeepsEveryAcknowledgedMessageExactlyOnce() throws {
        let dataDir = FileManager.default.temporaryDirectory.appendingPathComponent("sb-crash-msg-\(getpid())").path
        defer { try? FileManager.default.removeItem(atPath: dataDir) }
        let port = freePort()
        // Each sender sends thousands of messages a second: above the default per-user send rate.
        let unlimited = ["--send-rate", "1000000"]
        let first = try launchServer(dataDir: dataDir, port: port, extraArguments: unlimited)
        let users = try (0..<6).map { try makeUser(port, "user\($0)") }
        // Three direct pairs and one group of everyone.
        for i in 0..<3 { try befriend(users[i], users[i + 3]) }
        for i in 1..<6 where i != 3 { try befriend(users[0], users[i]) }
        let group = try #require(
            (ok(try users[0].client.call("groups.create", ["member_ids": users.dropFirst().map(\.id)]))?["conversation"]
                as? [String: Any])?[
                    "conversation_id"] as? Int)
        var conversations: [Int] = []
        for i in 0..<3 {
            conversations.append(
                try #require(
                    ok(try users[i].client.call("conversations.direct", ["user_id": users[i + 3].id]))?["conversation"]
                        as? [String: Any])[
                        "conversation_id"] as! Int)
        }
        // Six senders on their own connections, each with a window of 16 unacknowledged sends.
        struct Ack: Hashable {
            var conversation: Int
            var clientId: String
            var seq: Int
            var messageId: Int
        }
        let acks = Unchecked(NSMutableSet())
        let lock = NSLock()
        let senders = DispatchGroup()
        for (index, user) in users.enumerated() {
            let client = Unchecked(try reconnect(port, user))
            let target = index < 3 ? conversations[index] : group
            senders.enter()
            // A thread of its own: blocking reads on Dispatch's global queue would starve (2 threads here).
            Thread {
                defer { senders.leave() }
                let c = client.value
                c.setTimeout(3)
                var inFlight: [Int: String] = [:]
                var n = 0
                let deadline = Date().addingTimeInterval(20)
                while Date() < deadline {
                    while inFlight.count < 16 {
                        n += 1
                        let clientId = "u\(index)-\(n)"
                        guard
                            let id = try? c.send(
                                "messages.send",
                                ["conversation_id": target, "client_id": clientId, "text": "load \(n)"])
                        else { return }
                        inFlight[id] = clientId
                    }
                    guard let message = try? c.next() else { return }
                    guard let re = message["re"] as? Int, let clientId = inFlight.removeValue(forKey: re) else {
                        continue
                    }
                    if let code = errorCode(message) {
                        lock.lock()
                        acks.value.add("error \(code) from user \(index)")
                        lock.unlock()
                    }
                    if let ack = message["ok"] as? [String: Any], let seq = ack["seq"] as? Int,
                        let mid = ack["message_id"] as? Int
                    {
                        lock.lock()
                        acks.value.add(Ack(conversation: target, clientId: clientId, seq: seq, messageId: mid))
                        lock.unlock()
                    }
                }
            }.start()
        }
        // Let the load run, then kill the server without any chance to clean up.
        let started = Date()
        while Date().timeIntervalSince(started) < 10 {
            usleep(100_000)
            lock.lock()
            let count = acks.value.count
            lock.unlock()
            if count >= 3000 && Date().timeIntervalSince(started) > 1.5 { break }
        }
        kill(first.processIdentifier, SIGKILL)
        first.waitUntilExit()
        senders.wait()
        lock.lock()
        let acknowledged = acks.value.allObjects.compactMap { $0 as? Ack }
        let errors = acks.value.allObjects.compactMap { $0 as? String }
        lock.unlock()
        #expect(errors.isEmpty, "\(errors)")
        print("crash test: \(acknowledged.count) messages acknowledged before kill -9")
        #expect(acknowledged.count > 500, "the load should have produced acknowledgements before the kill")

        let second = try launchServer(dataDir: dataDir, port: port, extraArguments: unlimited)
        defer {
            second.terminate()
            second.waitUntilExit()
        }
        // One member of each conversation reads its whole history.
        for (conversation, member) in zip(conversations + [group], [users[0], users[1], users[2], users[0]]) {
            let client = try reconnect(port, member)
            var history: [[String: Any]] = []
            var before: Int? = nil
            repeat {
                var params: [String: Any] = ["conversation_id": conversation, "limit": 100]
                if let before { params["before"] = before }
                let page = try #require(ok(try client.call("messages.history", params)))
                let messages = try #require(page["messages"] as? [[String: Any]])
                history.append(contentsOf: messages)
                before = (page["has_more"] as? Bool == true) ? messages.last?["seq"] as? Int : nil
            } while before != nil
            let seqs = history.compactMap { $0["seq"] as? Int }.sorted()
            let acked = acknowledged.filter { $0.conversation == conversation }.count
            #expect(acked > 0, "conversation \(conversation) had acknowledged sends (history: \(seqs.count))")
            #expect(seqs == Array(1...max(1, seqs.last ?? 1)), "sequence numbers without gaps or duplicates")
            var byClientId: [String: [[String: Any]]] = [:]
            for m in history { if let c = m["client_id"] as? String { byClientId[c, default: []].append(m) } }
            #expect(byClientId.values.allSatisfy { $0.count == 1 }, "no client message id stored twice")
            for ack in acknowledged where ack.conversation == conversation {
                let stored = byClientId[ack.clientId]
                #expect(stored?.count == 1, "acknowledged \(ack.clientId) is in history once")
                #expect(stored?.first?["seq"] as? Int == ack.seq)
                #expect(stored?.first?["id"] as? Int == ack.messageId)
            }
        }
    }
}

/// Issue 13, item 6: a failed start stops the embedded PostgreSQL it started.
@Suite("Failed start", .serialized)
struct FailedStartTests {
    @Test(.enabled(if: FileManager.default.isExecutableFile(atPath: serverBinary)))
    func portInUseStopsTheEmbeddedPostgres() throws {
        let dataDir = FileManager.default.temporaryDirectory.appendingPathComponent(
            "sb-failed-start-\(UUID().uuidString)"
        ).path
        defer { try? FileManager.default.removeItem(atPath: dataDir) }
        // Hold a port: bind and listen on it.
        let holder = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        defer { close(holder) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        address.sin_port = 0
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                bind(holder, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
            }
        }
        try #require(bound == 0 && listen(holder, 8) == 0)
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        _ = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(holder, $0, &length) }
        }
        let port = Int(UInt16(bigEndian: address.sin_port))

        let result = try runProcess(
            serverBinary,
            ["serve", "--host", "127.0.0.1", "--port", String(port), "--data-dir", dataDir, "--log-level", "warning"],
            timeout: 120)
        #expect(result.status != 0, "the server started on a port in use: \(result.output)")
        // The embedded PostgreSQL did start (its cluster exists) and is gone again.
        #expect(FileManager.default.fileExists(atPath: dataDir + "/postgres/PG_VERSION"))
        if let text = try? String(contentsOfFile: dataDir + "/postgres/postmaster.pid", encoding: .utf8),
            let pid = pid_t(text.split(separator: "\n").first?.trimmingCharacters(in: .whitespaces) ?? "")
        {
            let alive =
                kill(pid, 0) == 0
                && !((try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8))?.contains(") Z ") ?? true)
            #expect(!alive, "postgres \(pid) of the failed start is still running")
            if alive {
                kill(pid, SIGINT)  // do not leave it behind the test
                for _ in 0..<100 where kill(pid, 0) == 0 { usleep(100_000) }
            }
        }
    }
}
