//===----------------------------------------------------------------------===//
//
// This source file is part of the Switchboard open source project
//
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//

/// Admission control of one connection's requests (`docs/architecture.md`, Admission control). Protected by the
/// connection's loop queue (a field of `ProtocolApplication`, which asserts the loop).
///
/// - **In flight**: a request is in flight from its decoding until it is answered or its effect is handed to an
///   owner; that includes requests waiting behind an authentication and in the ordered lane. At `limit` in flight
///   the connection stops reading (`Connection.pauseReading`); it reads again when the count drops below `limit`
///   and nothing is held.
/// - **Held**: the frames of the last read that were decoded after the limit was reached (a read buffer may
///   hold many small frames). They are started, oldest first, as requests finish; so at most `limit` requests are
///   in flight and at most one read buffer's frames are held.
/// - **Tasks**: the request tasks (`ProtocolApplication.run`) by number, cancelled when the connection closes.
struct RequestAdmission {
    // Every connection holds this struct (48 bytes): the counts and task numbers are 32-bit and together, the Bool
    // in their padding, and one running task needs no dictionary.
    /// Requests in flight before the connection stops reading.
    private let limit32: Int32
    /// Requests decoded and not yet answered.
    private var inFlight32: Int32 = 0
    /// Where the held frames start in `held`.
    private var heldHead: Int32 = 0
    /// The last task number given (numbers wrap after 2^32 tasks, skipping 0; a task lives far shorter).
    private var nextTask: UInt32 = 0
    /// The running task `oneTask`'s number (0: none).
    private var oneTaskNumber: UInt32 = 0
    /// Reading is paused (by this type).
    private(set) var paused = false
    /// Frames decoded while at the limit, oldest first from `heldHead`.
    private var held: [[UInt8]] = []
    /// A running request task, the common case: no dictionary for it.
    private var oneTask: Task<Void, Never>?
    /// Further running request tasks; its storage is released when it empties (an idle connection keeps none).
    private var moreTasks: [UInt32: Task<Void, Never>] = [:]

    var limit: Int { Int(limit32) }
    var inFlight: Int { Int(inFlight32) }

    init(limit: Int) {
        precondition(limit >= 1, "at least one request in flight")
        limit32 = Int32(clamping: limit)
    }

    /// Frames held.
    var heldCount: Int { held.count - Int(heldHead) }

    /// Running request tasks.
    var taskCount: Int { (oneTask == nil ? 0 : 1) + moreTasks.count }

    /// Whether a newly decoded frame may start now (otherwise `hold` it).
    var mayStart: Bool { inFlight < limit && heldCount == 0 }

    /// A request starts.
    mutating func begin() { inFlight32 += 1 }

    /// A request was answered (or handed to its owner).
    mutating func end() {
        assert(inFlight32 > 0, "a request ended twice")
        inFlight32 = max(0, inFlight32 - 1)
    }

    /// Keeps a frame decoded while at the limit.
    mutating func hold(_ frame: [UInt8]) { held.append(frame) }

    /// The oldest held frame, if a request may start.
    mutating func nextHeld() -> [UInt8]? {
        guard inFlight < limit, heldCount > 0 else { return nil }
        let frame = held[Int(heldHead)]
        heldHead += 1
        if heldCount == 0 {
            held.removeAll(keepingCapacity: false)
            heldHead = 0
        }
        return frame
    }

    /// Whether reading should stop now (at the limit, not yet paused); marks it paused.
    mutating func shouldPause() -> Bool {
        guard !paused, inFlight >= limit else { return false }
        paused = true
        return true
    }

    /// Whether reading should resume now (below the limit, nothing held, paused); marks it running.
    mutating func shouldResume() -> Bool {
        guard paused, inFlight < limit, heldCount == 0 else { return false }
        paused = false
        return true
    }

    /// The number of the next request task (for `track` and `finished`).
    mutating func taskNumber() -> UInt32 {
        nextTask &+= 1
        if nextTask == 0 { nextTask = 1 }
        return nextTask
    }

    /// Keeps a request task's handle until `finished` (both on the loop, so the task cannot finish first).
    mutating func track(_ number: UInt32, _ task: Task<Void, Never>) {
        if oneTask == nil {
            oneTaskNumber = number
            oneTask = task
        } else {
            moreTasks[number] = task
        }
    }

    /// Forgets a finished task.
    mutating func finished(_ number: UInt32) {
        if oneTask != nil && oneTaskNumber == number {
            oneTask = nil
            oneTaskNumber = 0
        } else if moreTasks.removeValue(forKey: number) != nil, moreTasks.isEmpty {
            moreTasks = [:]
        }
    }

    /// The connection closed: cancels every running task, drops held frames; returns how many tasks were cancelled.
    mutating func close() -> Int {
        var running = Array(moreTasks.values)
        if let oneTask { running.append(oneTask) }
        oneTask = nil
        oneTaskNumber = 0
        moreTasks = [:]
        held = []
        heldHead = 0
        for task in running { task.cancel() }
        return running.count
    }
}
