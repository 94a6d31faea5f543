//===----------------------------------------------------------------------===//
//
// This source file is part of the Switchboard open source project
//
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//

/// Which messages the application has been given, per conversation, so a resume asks for exactly the rest
/// and a message that arrives twice (once live, once in a catch-up) is given once.
///
/// Per conversation it keeps a `floor` (every seq up to it is accounted for: given, sent by this device or
/// older than the session's baseline) and the seqs above the floor that were seen. The floor moves up when
/// the seqs above it fill in, and jumps to `last_seq` when a `sync` (or the baseline's `conversations.list`)
/// reports it. A resume asks for everything after the floor; what comes back and was already seen is dropped.
///
/// Why not just the highest seq: the sending connection gets only the acknowledgement of its own message, and
/// an acknowledgement for seq 8 can arrive before the event of someone else's seq 7 committed in the same
/// batch; resuming after 8 would lose 7, and dropping everything below 8 would drop it.
///
/// A value type without I/O; `SwitchboardClient` confines its copy to the client's loop queue.
public struct ResumeTracker: Sendable, Equatable {
    struct Window: Sendable, Equatable {
        /// Every seq up to this is accounted for; nil until the first message event or baseline.
        var floor: Int64?
        /// Seen seqs above `floor`.
        var seen: Set<Int64> = []
    }

    private var windows: [Int64: Window] = [:]
    /// Message events dropped because they had been given before.
    public private(set) var duplicatesDropped = 0

    /// An empty tracker (a new session).
    public init() {}

    /// A tracker resuming from saved points (`resumePoints` of an earlier session).
    public init(resumePoints: [Int64: Int64]) {
        for (c, seq) in resumePoints { windows[c] = Window(floor: seq) }
    }

    /// A `message` event: returns true when it is new (give it to the application), false for a duplicate.
    public mutating func observe(conversationId c: Int64, seq: Int64) -> Bool {
        var w = windows[c] ?? Window()
        if let floor = w.floor, seq <= floor {
            duplicatesDropped += 1
            return false
        }
        if w.seen.contains(seq) {
            duplicatesDropped += 1
            return false
        }
        if w.floor == nil {
            // The first event of a conversation the session knew nothing about: events of a connection come in
            // seq order, so everything before it is older than the session (or our own, already in `seen`).
            w.floor = seq - 1
        }
        w.seen.insert(seq)
        Self.compact(&w)
        windows[c] = w
        return true
    }

    /// The acknowledgement of a message this client sent (the sending connection gets no event for it).
    public mutating func acknowledge(conversationId c: Int64, seq: Int64) {
        var w = windows[c] ?? Window()
        if let floor = w.floor, seq <= floor { return }
        w.seen.insert(seq)
        Self.compact(&w)
        windows[c] = w
    }

    /// Everything up to `lastSeq` is accounted for: a `sync` reply (its catch-up was sent before it) or the
    /// session's baseline.
    public mutating func advance(conversationId c: Int64, to lastSeq: Int64) {
        var w = windows[c] ?? Window()
        w.floor = max(w.floor ?? lastSeq, lastSeq)
        Self.compact(&w)
        windows[c] = w
    }

    /// `sync {since}`: per known conversation, the seq after which everything is wanted. Conversations not
    /// listed come from the caller's joining (new ones, or ones this session never heard of).
    public var resumePoints: [Int64: Int64] {
        var since: [Int64: Int64] = [:]
        for (c, w) in windows {
            if let floor = w.floor {
                since[c] = floor
            } else if let first = w.seen.min() {
                since[c] = first - 1
            }
        }
        return since
    }

    /// Forgets everything (a new session).
    public mutating func reset() {
        windows = [:]
    }

    /// Seqs held above floors (a measure of gaps; small in practice).
    public var pendingCount: Int { windows.values.reduce(0) { $0 + $1.seen.count } }

    private static func compact(_ w: inout Window) {
        guard var floor = w.floor else { return }
        if !w.seen.isEmpty {
            w.seen = w.seen.filter { $0 > floor }
            while w.seen.remove(floor + 1) != nil { floor += 1 }
        }
        w.floor = floor
    }
}
