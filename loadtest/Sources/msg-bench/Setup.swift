//===----------------------------------------------------------------------===//
//
// This source file is part of the Switchboard open source project
//
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//

// `msg-bench setup`: registers users over the protocol (concurrently: register costs one Argon2id hash),
// befriends pairs and/or user 0 with the first group members, creates the direct conversations and the
// group, and writes the users file.
import ArgumentParser
import Foundation

#if canImport(Glibc)
import Glibc
#endif

/// Runs `body(i)` for i in 0..<count on `threads` threads; returns the first errors (at most 10) and their count.
func parallel(_ count: Int, threads: Int, _ body: @escaping @Sendable (Int) throws -> Void) -> (
    errors: Int, first: [String]
) {
    let next = Locked(0)
    let failures = Locked((0, [String]()))
    let group = DispatchGroup()
    for _ in 0..<max(1, min(threads, count)) {
        group.enter()
        Thread {
            while true {
                let i = next.withLock { v -> Int in
                    defer { v += 1 }
                    return v
                }
                if i >= count { break }
                do { try body(i) } catch {
                    failures.withLock {
                        $0.0 += 1
                        if $0.1.count < 10 { $0.1.append("#\(i): \(error)") }
                    }
                }
            }
            group.leave()
        }.start()
    }
    group.wait()
    return failures.withLock { ($0.0, $0.1) }
}

struct Setup: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Register users, befriend them, create conversations; write the users file.")

    @Option(help: "Server address (numeric, 127.0.0.1 only).") var host = "127.0.0.1"
    @Option var port: Int
    @Option(help: "Users to register.") var users = 1000
    @Flag(help: "Befriend users 2i and 2i+1 and create their direct conversation.") var pairs = false
    @Option(help: "Group of the first N users (user 0 befriends the others and creates it); 0: none.") var groupSize = 0
    @Option(help: "Concurrent registrations (connections).") var concurrency = 48
    @Option(help: "Output file.") var output = "msg-bench-users.json"
    @Option(help: "Give up after this many seconds.") var timeout = 600.0
    @Flag var json = false

    func validate() throws {
        guard host == "127.0.0.1" else { throw ValidationError("only 127.0.0.1") }
        guard users >= 2, groupSize == 0 || (groupSize >= 3 && groupSize <= users) else {
            throw ValidationError("--users at least 2; --group-size 0 or 3...users")
        }
    }

    func run() throws {
        let timeout = self.timeout
        DispatchQueue.global().asyncAfter(deadline: .now() + timeout) { @Sendable in
            note("setup: timed out after \(timeout) s")
            Glibc.exit(1)
        }
        let host = self.host, port = self.port, count = self.users
        let started = Date()
        let base = Int.random(in: 1_000_000...8_000_000)
        let registered = Locked([BenchUser?](repeating: nil, count: count))
        let clients = Locked([BlockingClient?](repeating: nil, count: count))
        let retries = Locked(0)
        // 1. Register.
        let reg = parallel(count, threads: concurrency) { i in
            var attempt = 0
            while true {
                attempt += 1
                let client = try BlockingClient(host: host, port: port)
                do {
                    let r = try client.call(
                        "register",
                        [
                            "phone": "+1555\(base + i)", "password": "msg-bench harbor lantern \(i % 7)",
                            "display_name": "u\(i)", "device": "bench",
                        ])
                    guard let id = r["user_id"] as? Int, let token = r["session_token"] as? String else {
                        throw ClientError(code: "register", message: "no user_id/session_token in \(r)")
                    }
                    registered.withLock { $0[i] = BenchUser(id: id, token: token) }
                    clients.withLock { $0[i] = client }
                    return
                } catch let e as ClientError where e.code == "unavailable" && attempt < 500 {
                    retries.withLock { $0 += 1 }
                    usleep(20_000)
                }
            }
        }
        let registerSeconds = Date().timeIntervalSince(started)
        guard reg.errors == 0 else {
            note("setup: \(reg.errors) registrations failed: \(reg.first)")
            throw ExitCode(1)
        }
        note(
            String(
                format: "setup: %d users registered in %.1f s (%.0f/s, %d busy retries)", count, registerSeconds,
                Double(count) / registerSeconds, retries.withLock { $0 }))
        let all = registered.withLock { $0.map { $0! } }
        @Sendable func client(_ i: Int) -> BlockingClient { clients.withLock { $0[i]! } }

        // 2. Pairs: 2i and 2i+1 become friends; their direct conversation is created.
        let madePairs = Locked([BenchPair?](repeating: nil, count: pairs ? count / 2 : 0))
        if pairs {
            let t = Date()
            let r = parallel(count / 2, threads: concurrency) { p in
                let a = 2 * p, b = 2 * p + 1
                let requested = try client(a).call("friends.request", ["user_id": all[b].id])
                if let request = requested["request"] as? [String: Any], let id = request["request_id"] as? Int {
                    _ = try client(b).call("friends.accept", ["request_id": id])
                }
                let direct = try client(a).call("conversations.direct", ["user_id": all[b].id])
                guard let conversation = (direct["conversation"] as? [String: Any])?["conversation_id"] as? Int else {
                    throw ClientError(code: "conversations.direct", message: "no conversation_id")
                }
                madePairs.withLock { $0[p] = BenchPair(a: a, b: b, conversationId: conversation) }
            }
            guard r.errors == 0 else {
                note("setup: \(r.errors) pairs failed: \(r.first)")
                throw ExitCode(1)
            }
            note(String(format: "setup: %d pairs befriended in %.1f s", count / 2, Date().timeIntervalSince(t)))
        }

        // 3. The group: user 0 befriends users 1..<groupSize (pipelined), they accept, user 0 creates it.
        var groupId: Int?
        if groupSize > 0 {
            let t = Date()
            let owner = client(0)
            let results = try owner.callMany("friends.request", (1..<groupSize).map { ["user_id": all[$0].id] })
            var requestIds = [Int?](repeating: nil, count: groupSize)
            for (k, result) in results.enumerated() {
                switch result {
                case .success(let ok):
                    requestIds[k + 1] = (ok["request"] as? [String: Any])?["request_id"] as? Int
                case .failure(let e):
                    note("setup: friends.request to member \(k + 1) failed: \(e)")
                    throw ExitCode(1)
                }
            }
            let ids = requestIds
            let r = parallel(groupSize - 1, threads: concurrency) { k in
                if let id = ids[k + 1] { _ = try client(k + 1).call("friends.accept", ["request_id": id]) }
            }
            guard r.errors == 0 else {
                note("setup: \(r.errors) accepts failed: \(r.first)")
                throw ExitCode(1)
            }
            let created = try owner.call(
                "groups.create", ["name": "bench", "member_ids": (1..<groupSize).map { all[$0].id }])
            groupId = (created["conversation"] as? [String: Any])?["conversation_id"] as? Int
            guard groupId != nil else {
                note("setup: groups.create returned no conversation_id")
                throw ExitCode(1)
            }
            note(String(format: "setup: group of %d created in %.1f s", groupSize, Date().timeIntervalSince(t)))
        }
        let file = UsersFile(
            host: host, port: port, users: all, pairs: madePairs.withLock { $0.map { $0! } }, groupId: groupId,
            groupSize: groupSize)
        try file.save(output)
        clients.withLock { $0 = [] }  // closes the connections
        report(
            [
                "users": count, "register_seconds": (registerSeconds * 10).rounded() / 10,
                "registrations_per_second": Int(Double(count) / registerSeconds), "pairs": file.pairs.count,
                "group_id": groupId ?? 0, "group_size": groupSize,
                "seconds": (Date().timeIntervalSince(started) * 10).rounded() / 10,
                "output": output,
            ], json: json)
    }
}
