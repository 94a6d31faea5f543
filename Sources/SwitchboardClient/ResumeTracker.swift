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
/// Per conversation it keeps a `floor` (every seq up to it is accounted for: given, or sent by this device)
/// and the seqs above the floor that were seen. The floor moves up when the seqs above it fill in, and jumps
/// to `last_seq` when a `sync` reports it. A resume asks for everything after the floor; what comes back and
/// was already seen is dropped. Before a conversation's first event, the session's baseline (its `last_seq`
/// when the session began) says where a resume starts.
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
    /// The session's starting point per conversation (`conversations.list` right after authenticating):
    /// where a resume starts for a conversation that had no message event yet. Unlike a floor it does not
    /// make later events at or below it duplicates: one committed just before the list was read may still be
    /// on its way, and it is new to the application.
    private var baselines: [Int64: Int64] = [:]
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

    /// The session starts at `lastSeq` in this conversation (its `last_seq` in `conversations.list` read
    /// right after authenticating): a resume before any message event of it asks for what came after.
    public mutating func setBaseline(conversationId c: Int64, lastSeq: Int64) {
        baselines[c] = max(baselines[c] ?? lastSeq, lastSeq)
    }

    /// Everything up to `lastSeq` is accounted for: a `sync` reply (its catch-up was sent before it), or
    /// saved resume points.
    public mutating func advance(conversationId c: Int64, to lastSeq: Int64) {
        var w = windows[c] ?? Window()
        w.floor = max(w.floor ?? lastSeq, lastSeq)
        Self.compact(&w)
        windows[c] = w
    }

    /// `sync {since}`: per known conversation, the seq after which everything is wanted. Conversations not
    /// listed come from the caller's joining (new ones, or ones this session knows nothing about).
    ///
    /// A conversation in which this client only sent (acknowledgements, no event yet) resumes from its
    /// baseline; without one it is left out: someone else's message committed just before ours may still
    /// have been on its way, so starting after our first own seq could lose it.
    public var resumePoints: [Int64: Int64] {
        var since: [Int64: Int64] = [:]
        for (c, seq) in baselines { since[c] = seq }
        for (c, w) in windows {
            if let floor = w.floor {
                since[c] = floor
            } else if let baseline = baselines[c] {
                since[c] = min(baseline, (w.seen.min() ?? baseline + 1) - 1)
            } else {
                since[c] = nil
            }
        }
        return since
    }

    /// Whether a message before `seq` of this conversation is missing once `seq` was observed: the floor is known
    /// and below `seq - 1`. A connection's message events arrive in seq order, so a hole below a message event is a
    /// message the live stream missed (a delivery lost between nodes): `sync {since: resumePoints}` brings it.
    public func hasGap(conversationId c: Int64, below seq: Int64) -> Bool {
        guard let floor = windows[c]?.floor else { return false }
        return floor < seq - 1
    }

    /// Whether any conversation has a hole: seqs seen above a known floor (the floor's next seq is missing).
    public var hasAnyGap: Bool { windows.values.contains { $0.floor != nil && !$0.seen.isEmpty } }

    /// Forgets everything (a new session).
    public mutating func reset() {
        windows = [:]
        baselines = [:]
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
