//===----------------------------------------------------------------------===//
//
// This source file is part of the Switchboard open source project
//
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//

/// What the run learnt about every conversation and every client, to check that each client got every
/// message of its conversations exactly once and without a gap.
///
/// The rule checked: in each conversation, every seq above the run's starting point up to the highest seq
/// anyone saw must reach each member either as a `message` event or as the acknowledgement of its own send
/// (the sending connection gets no event for its own message). That covers the messages of others, its own
/// messages sent from another device, and system messages (call records).
public struct DeliveryLedger: Sendable {
    /// Per conversation: its members (client indexes) and the last seq before the run.
    public struct Conversation: Sendable {
        public var members: [Int]
        public var baseline: Int64
        public init(members: [Int], baseline: Int64) {
            self.members = members
            self.baseline = baseline
        }
    }

    /// A client that is missing messages or got some twice.
    public struct Shortfall: Sendable, Equatable, CustomStringConvertible {
        public var client: Int
        public var conversationId: Int64
        /// Seqs it should have and does not have (at most the first 10).
        public var missing: [Int64]
        public var missingCount: Int
        /// Seqs it got more than once.
        public var duplicates: Int

        public init(client: Int, conversationId: Int64, missing: [Int64], missingCount: Int, duplicates: Int) {
            self.client = client
            self.conversationId = conversationId
            self.missing = missing
            self.missingCount = missingCount
            self.duplicates = duplicates
        }

        public var description: String {
            "client \(client), conversation \(conversationId): \(missingCount) missing \(missing), \(duplicates) twice"
        }
    }

    private var conversations: [Int64: Conversation] = [:]
    /// Highest seq seen (acknowledged or delivered) per conversation.
    private var highest: [Int64: Int64] = [:]
    /// Per client and conversation: the seqs it has, and how many arrived twice.
    private var received: [Int: [Int64: Set<Int64>]] = [:]
    private var twice: [Int: [Int64: Int]] = [:]

    public init() {}

    /// Registers a conversation before the run.
    public mutating func add(conversationId: Int64, members: [Int], baseline: Int64) {
        conversations[conversationId] = Conversation(members: members, baseline: baseline)
        highest[conversationId] = max(highest[conversationId] ?? 0, baseline)
    }

    /// The members of a conversation (client indexes).
    public func members(of conversationId: Int64) -> [Int] { conversations[conversationId]?.members ?? [] }

    /// The client sent `seq` and got the acknowledgement.
    public mutating func acknowledged(client: Int, conversationId: Int64, seq: Int64) {
        note(client: client, conversationId: conversationId, seq: seq)
    }

    /// The client got a `message` event.
    public mutating func delivered(client: Int, conversationId: Int64, seq: Int64) {
        note(client: client, conversationId: conversationId, seq: seq)
    }

    private mutating func note(client: Int, conversationId: Int64, seq: Int64) {
        guard let conversation = conversations[conversationId], seq > conversation.baseline else { return }
        highest[conversationId] = max(highest[conversationId] ?? 0, seq)
        if !received[client, default: [:]][conversationId, default: []].insert(seq).inserted {
            twice[client, default: [:]][conversationId, default: 0] += 1
        }
    }

    /// Every (client, conversation) that lacks a seq in (baseline, highest] or got one twice.
    /// - Parameter clients: only these clients (nil: all members).
    public func shortfalls(clients: Set<Int>? = nil) -> [Shortfall] {
        var result: [Shortfall] = []
        for (id, conversation) in conversations.sorted(by: { $0.key < $1.key }) {
            let top = highest[id] ?? conversation.baseline
            for member in conversation.members where clients?.contains(member) ?? true {
                let have = received[member]?[id] ?? []
                let dup = twice[member]?[id] ?? 0
                let expected = top - conversation.baseline
                if Int64(have.count) == expected && dup == 0 { continue }
                var missing: [Int64] = []
                var missingCount = 0
                if conversation.baseline < top {
                    for seq in (conversation.baseline + 1)...top where !have.contains(seq) {
                        missingCount += 1
                        if missing.count < 10 { missing.append(seq) }
                    }
                }
                if missingCount == 0 && dup == 0 { continue }
                result.append(
                    Shortfall(
                        client: member, conversationId: id, missing: missing, missingCount: missingCount,
                        duplicates: dup))
            }
        }
        return result
    }

    /// Messages (seqs above the baselines) stored during the run, over all conversations.
    public var storedDuringRun: Int64 {
        conversations.reduce(0) { $0 + ((highest[$1.key] ?? $1.value.baseline) - $1.value.baseline) }
    }
}
