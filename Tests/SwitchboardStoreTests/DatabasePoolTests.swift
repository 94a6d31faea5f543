//===----------------------------------------------------------------------===//
//
// This source file is part of the Switchboard open source project
//
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//

import Dispatch
import Foundation
import SwitchboardStore
import Testing

@Suite("DatabasePool")
struct DatabasePoolTests {
    @Test("50 concurrent async queries through a pool of 4")
    func concurrentQueries() async throws {
        let pool = try DatabasePool(
            connectionString: try TestDatabase.shared.makeDatabase(),
            size: 4,
            logger: quietLogger()
        )
        defer { pool.close() }
        try await pool.withConnection { try $0.query("CREATE TABLE hits (n int, backend int)") }
        let values = try await withThrowingTaskGroup(of: Int.self) { group in
            for n in 0..<50 {
                group.addTask {
                    try await pool.withConnection { connection in
                        try connection.query(
                            "INSERT INTO hits SELECT $1, pg_backend_pid() FROM pg_sleep(0.01)",
                            [.int(n)]
                        )
                        return try connection.query("SELECT $1::int", [.int(n)]).first?.int(0) ?? -1
                    }
                }
            }
            var values: [Int] = []
            for try await value in group { values.append(value) }
            return values
        }
        #expect(values.sorted() == Array(0..<50))
        let (rows, backends) = try await pool.withConnection { connection in
            (
                try connection.query("SELECT count(*) FROM hits").first?.int(0),
                try connection.query("SELECT count(DISTINCT backend) FROM hits").first?.int(0)
            )
        }
        #expect(rows == 50)
        #expect((backends ?? 0) <= 4)
    }

    @Test("Pool transactions commit or roll back")
    func transactions() async throws {
        struct Boom: Error {}
        let pool = try DatabasePool(
            connectionString: try TestDatabase.shared.makeDatabase(),
            size: 2,
            logger: quietLogger()
        )
        defer { pool.close() }
        try await pool.withConnection { try $0.query("CREATE TABLE t (x int)") }
        try await pool.transaction { try $0.query("INSERT INTO t VALUES (1)") }
        await #expect(throws: Boom.self) {
            try await pool.transaction { connection in
                try connection.query("INSERT INTO t VALUES (2)")
                throw Boom()
            }
        }
        let count = try await pool.withConnection { try $0.query("SELECT count(*) FROM t").first?.int(0) }
        #expect(count == 1)
    }

    @Test("The callback variant completes on the given queue without blocking it")
    func callbackVariant() throws {
        let pool = try DatabasePool(
            connectionString: try TestDatabase.shared.makeDatabase(),
            size: 1,
            logger: quietLogger()
        )
        defer { pool.close() }
        let loop = DispatchQueue(label: "fake-loop")
        let key = DispatchSpecificKey<Int>()
        loop.setSpecific(key: key, value: 7)
        let done = DispatchSemaphore(value: 0)
        let results = Results()
        loop.async {
            for n in 0..<5 {
                pool.withConnection(on: loop, { try $0.query("SELECT $1::int", [.int(n)]).first?.int(0) }) { result in
                    results.append(DispatchQueue.getSpecific(key: key) == 7 ? (try? result.get()) ?? nil : nil)
                    if results.count == 5 { done.signal() }
                }
            }
        }
        #expect(done.wait(timeout: .now() + 10) == .success)
        #expect(results.values == [0, 1, 2, 3, 4])
    }

    @Test("A closed pool fails new work with .closed")
    func closedPool() async throws {
        let pool = try DatabasePool(
            connectionString: try TestDatabase.shared.makeDatabase(),
            size: 1,
            logger: quietLogger()
        )
        pool.close()
        await #expect {
            try await pool.withConnection { try $0.query("SELECT 1") }
        } throws: { error in
            (error as? PostgresError)?.kind == .closed
        }
    }

    @Test("Creating a pool against a missing server fails fast")
    func failsFast() {
        let start = ContinuousClock.now
        #expect {
            _ = try DatabasePool(
                connectionString: "host=/nonexistent-switchboard port=5999 connect_timeout=2",
                size: 4,
                logger: quietLogger()
            )
        } throws: { error in
            (error as? PostgresError)?.kind == .connectionFailed && "\(error)".contains("nonexistent-switchboard")
        }
        #expect(ContinuousClock.now - start < .seconds(5))
    }
}

/// Callback results, appended on one queue and read after a semaphore.
private final class Results: @unchecked Sendable {
    // @unchecked Sendable: appended only on the test's "fake-loop" queue; read after the semaphore signals.
    private(set) var values: [Int?] = []
    var count: Int { values.count }
    func append(_ value: Int?) { values.append(value) }
}
