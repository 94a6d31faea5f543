//===----------------------------------------------------------------------===//
//
// This source file is part of the Switchboard open source project
//
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//

import SwitchboardDomain
import SwitchboardProtocol

/// Deliveries of a writer step, collected and handed to the outbox at once.
///
/// Consecutive messages to the same devices (a commit carrying many messages of one group) form a run, handed
/// over as one `.messages` item per device instead of one `.message` item per device and message: a commit of 16
/// messages to 1,000 members is 1,000 entries, not 16,000 (issue 17). Each device gets the run's messages in
/// order, less those it sent itself (`except`). Anything else added to the plan (an ephemeral event) ends the
/// run, so every connection's items keep the plan's order; replies do not (the outbox sends replies ahead of the
/// rest of a batch anyway).
struct DeliveryPlan {
    private var entries = OutboxBatch()
    private var run: Run?

    /// Messages to the same devices, in order, with the connection each one must skip (its sender's).
    private struct Run {
        let devices: [Device]
        var messages: [OutboundMessage]
        var excepts: [(index: Int, connection: ConnectionID)]
    }

    /// Everything planned, in order.
    var batch: OutboxBatch {
        var batch = entries
        if let run { Self.add(run, to: &batch) }
        return batch
    }

    mutating func reply(_ reply: EngineReply, to origin: Device) {
        entries.reply(reply, to: origin.connection)
    }

    /// A message to `devices` but `except`. `sameDevicesAsLast`: `devices` are those of the previous `deliver`
    /// (the caller knows: it looked them up once), so the message may join its run.
    mutating func deliver(
        _ message: OutboundMessage, to devices: [Device], except: ConnectionID?, sameDevicesAsLast: Bool = false
    ) {
        if sameDevicesAsLast, run != nil {
            run!.messages.append(message)
            if let except { run!.excepts.append((run!.messages.count - 1, except)) }
            return
        }
        endRun()
        run = Run(devices: devices, messages: [message], excepts: except.map { [(0, $0)] } ?? [])
    }

    mutating func ephemeral(_ bytes: [UInt8], source: String, to devices: [Device]) {
        endRun()
        entries.add(.ephemeral(bytes, source: source), to: devices.lazy.map(\.connection))
    }

    private mutating func endRun() {
        guard let run else { return }
        Self.add(run, to: &entries)
        self.run = nil
    }

    private static func add(_ run: Run, to batch: inout OutboxBatch) {
        let all: OutboxItem = run.messages.count == 1 ? .message(run.messages[0]) : .messages(run.messages)
        batch.reserveCapacity(batch.count + run.devices.count)
        if run.excepts.isEmpty {
            batch.add(all, to: run.devices.lazy.map(\.connection))
            return
        }
        // The senders' connections: a few (one per sender in the commit), looked for by comparison; a set's hashing
        // was about 150 instructions per delivery of a fan-out.
        let skipping = run.excepts.reduce(into: [ConnectionID]()) {
            if !$0.contains($1.connection) { $0.append($1.connection) }
        }
        let skippingSet = skipping.count > 8 ? Set(skipping) : nil
        func skipped(_ device: Device) -> Bool {
            skippingSet.map { $0.contains(device.connection) } ?? skipping.contains(device.connection)
        }
        // Everyone else gets the whole run as one item (its connections in one list), then each skipped connection
        // its own part of the run: each connection still gets exactly one item of the run.
        batch.add(all, to: run.devices.lazy.filter { !skipped($0) }.map(\.connection))
        for device in run.devices where skipped(device) {
            let mine = run.messages.indices.filter { i in
                !run.excepts.contains { $0.index == i && $0.connection == device.connection }
            }
            switch mine.count {
            case 0: continue
            case 1: batch.add(.message(run.messages[mine[0]]), to: device.connection)
            default: batch.add(.messages(mine.map { run.messages[$0] }), to: device.connection)
            }
        }
    }
}
