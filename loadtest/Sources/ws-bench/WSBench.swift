//===----------------------------------------------------------------------===//
//
// This source file is part of the Switchboard open source project
//
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//

// A closed-loop WebSocket echo load generator on Switchboard's own transport and codec (client role):
// each connection sends a masked binary message and waits for the echo (or keeps --pipeline in flight).
import ArgumentParser
import Dispatch
import Foundation
import Histogram
import SwitchboardTransport
import SwitchboardWebSocket

@main
struct WSBench: ParsableCommand {
    @Option(help: "ws://127.0.0.1:PORT/path") var url: String
    @Option var connections = 100
    @Option(help: "Seconds measured.") var duration = 10.0
    @Option(help: "Seconds of warm-up before measuring.") var warmup = 2.0
    @Option var messageSize = 64
    @Option var pipeline = 1
    @Option var threads = 1
    @Option var subprotocol: String?
    @Flag(help: "Text messages (of ASCII 'a's) instead of binary.") var text = false
    @Flag var json = false

    func run() throws {
        guard let u = URL(string: url), u.scheme == "ws", let host = u.host, let port = u.port else {
            throw ValidationError("--url must be ws://HOST:PORT/path with a numeric host")
        }
        let path = u.path.isEmpty ? "/" : u.path
        let group = try EventLoopGroup(loopCount: threads)
        let stats = group.loops.map { _ in LoopStats() }
        let measuring = SharedFlag()
        let running = SharedFlag()
        running.set(true)
        let payload = [UInt8](repeating: 0x61, count: messageSize)
        let subprotocols = subprotocol.map { [$0] } ?? []
        for i in 0..<connections {
            let loop = group.loops[i % group.loops.count]
            let s = stats[i % group.loops.count]
            let pipeline = self.pipeline
            let text = self.text
            loop.execute {
                let client = BenchClient(
                    stats: s, payload: payload, text: text, pipeline: pipeline, host: "\(host):\(port)", path: path,
                    subprotocols: subprotocols, measuring: { measuring.get() }, running: { running.get() })
                loop.connect(host: host, port: port, handler: client) { result in
                    if case .failure = result { s.errors += 1 }
                }
            }
        }
        Thread.sleep(forTimeInterval: warmup)
        for loop in group.loops { loop.queue.sync { measuring.set(true) } }
        let start = Date()
        Thread.sleep(forTimeInterval: duration)
        measuring.set(false)
        let elapsed = Date().timeIntervalSince(start)
        running.set(false)
        var histogram = Histogram<UInt64>(highestTrackableValue: 60_000_000_000, numberOfSignificantValueDigits: .three)
        var roundTrips = 0
        var errors = 0
        var open = 0
        for (i, loop) in group.loops.enumerated() {
            loop.queue.sync {
                histogram.add(stats[i].histogram)
                roundTrips += stats[i].roundTrips
                errors += stats[i].errors
                open += stats[i].open
            }
        }
        let rate = Double(roundTrips) / elapsed
        func us(_ p: Double) -> Double { Double(histogram.valueAtPercentile(p)) / 1000 }
        if json {
            print(
                """
                {\"connections\":\(connections),\"text\":\(text),\"open\":\(open),\"message_size\":\(messageSize),\
                \"seconds\":\(String(format: "%.2f", elapsed)),\"round_trips\":\(roundTrips),\
                \"round_trips_per_second\":\(Int(rate)),\"p50_us\":\(us(50)),\"p99_us\":\(us(99)),\
                \"p999_us\":\(us(99.9)),\"max_us\":\(Double(histogram.max) / 1000),\"errors\":\(errors)}
                """
            )
        } else {
            print(
                "connections \(open)/\(connections), \(messageSize)-byte messages, \(String(format: "%.1f", elapsed)) s"
            )
            print("round trips: \(roundTrips) (\(Int(rate))/s)")
            print(
                String(
                    format: "latency us: p50 %.1f  p99 %.1f  p99.9 %.1f  max %.1f", us(50), us(99), us(99.9),
                    Double(histogram.max) / 1000))
            print("errors: \(errors)")
        }
        group.shutdown()
        if errors > 0 || open < connections { throw ExitCode(1) }
    }
}
