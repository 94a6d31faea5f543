//===----------------------------------------------------------------------===//
//
// This source file is part of the Switchboard open source project
//
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//

import Foundation
import SwitchboardStore
import Testing

/// Insert throughput on a fresh embedded server with the default (durable) settings.
/// Opt-in: `SWITCHBOARD_STORE_BENCH=1 swift test --filter InsertBenchmark`. Bounded: at most 20,000 rows per
/// method and 30 s for the one-at-a-time loop.
@Suite("InsertBenchmark", .enabled(if: ProcessInfo.processInfo.environment["SWITCHBOARD_STORE_BENCH"] == "1"))
struct InsertBenchmarkTests {
    @Test("One-at-a-time autocommit inserts vs pipelined 500-row batches")
    func insertRates() throws {
        let folder = temporaryFolder("bench")
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let server = EmbeddedPostgres(dataDirectory: folder, logger: quietLogger())
        defer { server.stop() }
        let connection = try PostgresConnection(connectionString: try server.start(), logger: quietLogger())
        let total = 20_000
        let sql = "INSERT INTO messages (conversation, body) VALUES ($1, $2)"
        let report = try on(connection) { connection -> String in
            try connection.query(
                "CREATE TABLE messages (id bigserial PRIMARY KEY, conversation bigint NOT NULL, body text NOT NULL, "
                    + "created_at timestamptz NOT NULL DEFAULT now())"
            )
            let clock = ContinuousClock()
            var single = 0
            let singleStart = clock.now
            while single < total, clock.now - singleStart < .seconds(30) {
                try connection.execute(cached: sql, [.int(single % 100), .text("message body number \(single)")])
                single += 1
            }
            let singleTime = clock.now - singleStart
            let batchStart = clock.now
            for batch in stride(from: 0, to: total, by: 500) {
                let rows: [[PostgresData?]] = (batch..<(batch + 500)).map {
                    [.int($0 % 100), .text("message body number \($0)")]
                }
                let results = try connection.transaction { try $0.pipeline(sql: sql, rows: rows) }
                #expect(results.count == 500)
            }
            let batchTime = clock.now - batchStart
            func rate(_ rows: Int, _ time: Duration) -> Int {
                Int(Double(rows) / (Double(time.components.seconds) + Double(time.components.attoseconds) / 1e18))
            }
            return "one at a time: \(single) rows in \(singleTime) = \(rate(single, singleTime)) rows/s; "
                + "pipelined 500-row transactions: \(total) rows in \(batchTime) = \(rate(total, batchTime)) rows/s"
        }
        print("InsertBenchmark:", report)
        connection.queue.sync { connection.close() }
    }
}
