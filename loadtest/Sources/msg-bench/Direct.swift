//===----------------------------------------------------------------------===//
//
// This source file is part of the Switchboard open source project
//
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//

import ArgumentParser
import Dispatch
import Foundation
import SwitchboardTransport

struct Direct: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract:
            "One-to-one: pairs of friends online, one sender per pair (or both); stored messages/s and ack latency.")

    @OptionGroup var options: RunOptions
    @Option(help: "Pairs used (default: all pairs of the users file).") var pairs: Int?
    @Flag(help: "Both users of a pair send.") var both = false

    func run() throws {
        let file = try UsersFile.load(options.users)
        let count = min(pairs ?? file.pairs.count, file.pairs.count)
        guard count >= 1 else { throw ValidationError("the users file has no pairs (setup --pairs)") }
        let used = Array(file.pairs[0..<count])
        var users: [BenchUser] = []
        var specs: [SenderSpec] = []
        for pair in used {
            users.append(file.users[pair.a])
            users.append(file.users[pair.b])
            specs.append(SenderSpec(client: users.count - 2, conversationId: pair.conversationId))
            if both { specs.append(SenderSpec(client: users.count - 1, conversationId: pair.conversationId)) }
        }
        let loopGroup = try EventLoopGroup(loopCount: 1)
        let run = SendRun(
            loop: loopGroup.loops[0], hosts: options.hostList(file), port: file.port, users: users, senders: specs,
            recipientsPerMessage: 1, window: options.window, rate: options.rate, textSize: options.textSize)
        defer { loopGroup.shutdown() }
        try drive(run, options: options, extra: ["scenario": "direct", "pairs": count])
    }
}
