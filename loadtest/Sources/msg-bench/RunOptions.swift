//===----------------------------------------------------------------------===//
//
// This source file is part of the Switchboard open source project
//
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//

import ArgumentParser

/// Options shared by the scenarios.
struct RunOptions: ParsableArguments {
    @Option(help: "Users file written by setup.") var users = "msg-bench-users.json"
    @Option(help: "Seconds measured.") var duration = 10.0
    @Option(help: "Seconds of sending before measuring.") var warmup = 2.0
    @Option(help: "Unacknowledged sends per sender.") var window = 16
    @Option(help: "Total messages per second (0: as fast as the windows allow).") var rate = 0.0
    @Option(help: "Characters of each text message.") var textSize = 32
    @Option(help: "Seconds to wait for outstanding acks and deliveries after sending stops.") var drainTimeout = 15.0
    @Option(
        help:
            """
            Server PID: report its CPU (and its children's, the embedded PostgreSQL) over the window; repeat it for \
            the nodes of a cluster (their CPU is summed).
            """
    ) var serverPid: [Int32] = []
    @Option(
        help:
            """
            Comma-separated server addresses, all on the users file's port (a cluster's nodes): client i connects to \
            the (i mod n)-th. Default: the users file's host.
            """
    ) var hosts: String?

    /// The addresses clients connect to.
    func hostList(_ file: UsersFile) -> [String] {
        let list = (hosts ?? "").split(separator: ",").map(String.init).filter { !$0.isEmpty }
        return list.isEmpty ? [file.host] : list
    }
    @Flag var json = false
}
