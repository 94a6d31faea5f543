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

struct Fanout: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract:
            """
            Group fan-out: every member of the setup's group online, a few senders; deliveries/s and send-to-receive \
            latency.
            """
    )

    @OptionGroup var options: RunOptions
    @Option(help: "Senders (the first members of the group).") var senders = 1

    func run() throws {
        let file = try UsersFile.load(options.users)
        guard let group = file.groupId, file.groupSize >= 3 else {
            throw ValidationError("the users file has no group (setup --group-size)")
        }
        guard senders >= 1 && senders <= file.groupSize else { throw ValidationError("--senders 1...group size") }
        let loopGroup = try EventLoopGroup(loopCount: 1)
        let members = Array(file.users[0..<file.groupSize])
        let run = SendRun(
            loop: loopGroup.loops[0], hosts: options.hostList(file), port: file.port, users: members,
            senders: (0..<senders).map { SenderSpec(client: $0, conversationId: group) },
            recipientsPerMessage: file.groupSize - 1, window: options.window, rate: options.rate,
            textSize: options.textSize)
        defer { loopGroup.shutdown() }
        try drive(run, options: options, extra: ["scenario": "fanout", "group_size": file.groupSize])
    }
}
