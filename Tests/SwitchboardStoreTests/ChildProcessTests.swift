//===----------------------------------------------------------------------===//
//
// This source file is part of the Switchboard open source project
//
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//

import Foundation
import Testing

@testable import SwitchboardStore

@Suite("Child processes")
struct ChildProcessTests {
    /// The embedded PostgreSQL and pg_dump never see systemd's variables addressed to the server (found under a real
    /// systemd: PostgreSQL sent its own READY=1 to the service's socket); every other variable passes.
    @Test func systemdVariablesAreNotPassedToChildren() throws {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("child-env-\(UUID().uuidString)").path
        let output = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o600)
        #expect(output >= 0)
        defer { unlink(path) }
        var environment = ["KEEP_ME": "1", "PATH": "/usr/bin:/bin"]
        for name in ChildProcess.systemdVariables { environment[name] = "x" }
        let pid = try ChildProcess.spawn(["/usr/bin/env"], output: output, environment: environment)
        close(output)
        var status: Int32 = 0
        #expect(waitpid(pid, &status, 0) == pid)
        let printed = try String(contentsOfFile: path, encoding: .utf8).split(separator: "\n").map(String.init)
        #expect(printed.contains("KEEP_ME=1"))
        for name in ChildProcess.systemdVariables {
            #expect(!printed.contains { $0.hasPrefix(name + "=") }, "\(name) reached the child")
        }
        #expect(ChildProcess.systemdVariables.contains("NOTIFY_SOCKET"))
    }
}
