//===----------------------------------------------------------------------===//
//
// This source file is part of the Switchboard open source project
//
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//

import Testing

@testable import SwitchboardServer

/// The registry's compact storage (a user's devices in a `SmallDeviceMap`, a session mapped to its user) and the
/// request tasks of `RequestAdmission` (one inline, more in a dictionary).
struct SessionRegistryTests {
    private func device(_ connection: UInt64, user: Int64, session: Int64, node: UInt32 = 0) -> Device {
        Device(sessionId: session, userId: user, connection: id(connection, node: node))
    }

    private func id(_ local: UInt64, node: UInt32 = 0) -> ConnectionID {
        ConnectionID(rawValue: UInt64(node) << ConnectionID.localBits | local)
    }

    @Test func devicesOfUsersAndSessionsAsTheyComeAndGo() {
        let registry = SessionRegistry()
        let a1 = device(1, user: 10, session: 100)
        let a2 = device(2, user: 10, session: 100)  // a reconnect of the same session
        let a3 = device(3, user: 10, session: 101, node: 2)
        let b1 = device(4, user: 20, session: 200)
        #expect(registry.add(a1))
        #expect(!registry.add(a2))
        #expect(!registry.add(a3))
        #expect(registry.add(b1))
        #expect(!registry.add(a1))  // the same connection again replaces it
        #expect(Set(registry.devices(ofUser: 10)) == [a1, a2, a3])
        #expect(Set(registry.devices(ofSession: 100)) == [a1, a2])
        #expect(registry.devices(ofSession: 101) == [a3])
        #expect(registry.sessions(ofUser: 10) == [100, 101])
        #expect(registry.nodeCount(ofUser: 10) == 2)
        #expect(Set(registry.devices(ofUsers: [10, 20, 10])) == [a1, a2, a3, b1])
        #expect(Set(registry.devices(onNode: 0)) == [a1, a2, b1])
        #expect(registry.onlineUserCount == 2)

        #expect(!registry.remove(a1.connection, userId: 10))
        #expect(registry.devices(ofSession: 100) == [a2])
        #expect(!registry.remove(a2.connection, userId: 10))
        #expect(registry.devices(ofSession: 100).isEmpty)
        #expect(registry.sessions(ofUser: 10) == [101])
        #expect(!registry.remove(a2.connection, userId: 10))  // not there: the user still has a device
        #expect(registry.remove(a3.connection, userId: 10))
        #expect(registry.devices(ofUser: 10).isEmpty)
        #expect(registry.devices(ofSession: 101).isEmpty)
        #expect(!registry.isOnline(10))
        #expect(registry.isOnline(20))
        #expect(registry.remove(a3.connection, userId: 10))  // a user with no device
        #expect(registry.remove(b1.connection, userId: 20))
        #expect(registry.onlineUserCount == 0)
    }

    @Test func requestTasksOneInlineMoreInADictionary() async {
        var admission = RequestAdmission(limit: 4)
        let tasks = (0..<3).map { _ in Task<Void, Never> { try? await Task.sleep(for: .seconds(60)) } }
        let numbers = tasks.map { _ in admission.taskNumber() }
        for (number, task) in zip(numbers, tasks) { admission.track(number, task) }
        #expect(admission.taskCount == 3)
        admission.finished(numbers[0])
        #expect(admission.taskCount == 2)
        admission.finished(numbers[0])  // twice: nothing
        #expect(admission.taskCount == 2)
        admission.track(admission.taskNumber(), Task {})
        #expect(admission.taskCount == 3)
        #expect(admission.close() == 3)
        #expect(admission.taskCount == 0)
        for task in tasks.dropFirst() { #expect(task.isCancelled) }
        #expect(!tasks[0].isCancelled)
        tasks[0].cancel()
    }
}
