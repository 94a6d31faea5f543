//===----------------------------------------------------------------------===//
//
// This source file is part of the Switchboard open source project
//
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//

public import SwitchboardDomain
public import SwitchboardProtocol

/// The messaging rules of one batch of writes: who may write where (membership, friendship in a direct
/// conversation, group size, who may delete), idempotency by client id (against stored messages and within the
/// batch), and gapless seq assignment from the conversations' states. Pure apart from `store`: the server's
/// writer drives it inside a transaction and owns the states it returns.
///
/// Several processes may write to one conversation at once (a cluster): the batch first locks its
/// conversations' rows (`store.lock`), and everything that depends on them comes after the lock: the seqs
/// continue from the locked row's `last_seq` (never from a cached one), a cached state whose version differs
/// from the row's is reloaded (another process added, removed or renamed), and the idempotency look-up by
/// client id sees every message committed before the lock was granted (a resend landing on two processes at
/// once is stored once; the second gets the first's message).
public enum MessageBatch {
    public struct Outcome: Sendable {
        /// Per write, in order.
        public var results: [Result<ChatMessage, ServiceError>]
        /// The states of the conversations the batch touched or loaded.
        public var states: [Int64: ConversationState]
        /// Per write: whether its message is new (to deliver) rather than an earlier duplicate.
        public var stored: [Bool]
        /// The batch's transaction, when it wrote anything (to resolve a COMMIT whose answer was lost).
        public var transactionId: Int64?

        public init(
            results: [Result<ChatMessage, ServiceError>], states: [Int64: ConversationState], stored: [Bool],
            transactionId: Int64?
        ) {
            self.results = results
            self.states = states
            self.stored = stored
            self.transactionId = transactionId
        }
    }

    /// The store's insert met a stored message with one of the batch's idempotency keys. Only a batch run without
    /// the look-up (`lookUpKeys: false`) can meet one: its caller rolls the transaction back and runs the batch
    /// again with the look-up, which answers the resend with the stored message.
    public struct StoredKeyConflict: Error, Sendable {
        public init() {}
    }

    /// Applies the writes in order. `known`: the cached states, used where their version is the locked row's
    /// (others are loaded from `store`).
    ///
    /// `lookUpKeys`: whether the batch's idempotency keys are looked up before the insert. Without the look-up
    /// (the server's first try: a resend is rare, and the look-up was a statement per key), a key stored already
    /// makes the insert throw `StoredKeyConflict` (the store's unique index), and the caller runs the batch again
    /// with it in a new transaction.
    public static func run(
        _ batch: [ConversationWrite], known: [Int64: ConversationState], maxGroupMembers: Int,
        store: some MessageBatchStore,
        lookUpKeys: Bool = true
    ) throws -> Outcome {
        let ids = Set(batch.map(\.conversationId)).sorted()
        // The senders' accounts are locked against deletion with the conversations (`MessageStore.lockHeads`): a
        // deleted account's messages are refused, so none commits after deletion's tombstones.
        var senders = Set<Int64>()
        for request in batch { if case .send = request.action { senders.insert(request.actor) } }
        let (heads, deletedSenders) = try store.lock(ids: ids, senders: senders.sorted())
        var states: [Int64: ConversationState] = [:]
        var stale: [Int64] = []
        for id in ids {
            guard let head = heads[id] else { continue }  // no such conversation
            if var state = known[id], state.version == head.version {
                state.lastSeq = head.lastSeq
                states[id] = state
            } else {
                stale.append(id)
            }
        }
        for (id, state) in try store.loadStates(ids: stale) { states[id] = state }

        // Friendships needed: direct sends and group additions.
        var pairs = Set<FriendRepository.Pair>()
        var directs = Set<DirectPair>()
        var keys: [MessageStore.ClientKey] = []
        for request in batch {
            guard let state = states[request.conversationId] else { continue }
            switch request.action {
            case .send(_, _, let clientId, _):
                if deletedSenders.contains(request.actor) { continue }
                if !state.isGroup, let other = state.members.keys.first(where: { $0 != request.actor }) {
                    pairs.insert(FriendRepository.Pair(request.actor, other))
                    directs.insert(DirectPair(sender: request.actor, recipient: other))
                    directs.insert(DirectPair(sender: other, recipient: request.actor))
                }
                if let clientId {
                    keys.append(
                        MessageStore.ClientKey(
                            conversationId: request.conversationId, senderId: request.actor, clientId: clientId))
                }
            case .add(let user):
                pairs.insert(FriendRepository.Pair(request.actor, user))
            default: break
            }
        }
        let friends = try store.friendPairs(pairs)
        let policy =
            directs.isEmpty ? (blocked: Set<DirectPair>(), allowed: Set<DirectPair>()) : try store.directPolicy(directs)
        let existing = lookUpKeys ? try store.existing(keys) : [:]

        var results: [Result<ChatMessage, ServiceError>?] = Array(repeating: nil, count: batch.count)
        var stored = Array(repeating: false, count: batch.count)
        var inserts: [NewMessage] = []
        var insertOwners: [Int] = []
        var firstWithKey: [MessageStore.ClientKey: Int] = [:]
        var duplicateOf: [Int: Int] = [:]
        var changed: [Int64: ConversationHead] = [:]
        var readMarks: [(conversationId: Int64, userId: Int64, seq: Int64)] = []

        func fail(_ i: Int, _ code: ErrorCode, _ message: String) { results[i] = .failure(ServiceError(code, message)) }
        /// A group change's checks: membership first (a stranger learns nothing about the conversation, not even
        /// its kind), then that it is a group; false after answering request `i` with the failure.
        func groupChangeAllowed(_ i: Int, _ state: ConversationState, _ actor: Int64, notGroup message: String) -> Bool
        {
            guard state.isActiveMember(actor) else {
                results[i] = .failure(.notMember)
                return false
            }
            guard state.isGroup else {
                fail(i, .badRequest, message)
                return false
            }
            return true
        }

        for (i, request) in batch.enumerated() {
            if case .announce(let m) = request.action {
                results[i] = .success(m)
                continue
            }
            let conversationId = request.conversationId
            guard var state = states[conversationId] else {
                results[i] = .failure(.notMember)
                continue
            }
            let actor = request.actor
            var system: SystemEvent?
            switch request.action {
            case .send(let kind, let body, let clientId, let voiceId):
                guard !deletedSenders.contains(actor) else {
                    results[i] = .failure(.accountDeleted)
                    continue
                }
                guard state.isActiveMember(actor) else {
                    results[i] = .failure(.notMember)
                    continue
                }
                if !state.isGroup, let other = state.members.keys.first(where: { $0 != actor }) {
                    // A block either way ends a direct conversation's sends; otherwise friends, or a pair that either
                    // side's DM policy admits, so the one who was written to can answer (docs/social.md, "Visibility
                    // and blocks").
                    let direct = DirectPair(sender: actor, recipient: other)
                    if policy.blocked.contains(direct) {
                        fail(i, .forbidden, "you cannot message this user")
                        continue
                    }
                    if !friends.contains(FriendRepository.Pair(actor, other)) && !policy.allowed.contains(direct)
                        && !policy.allowed.contains(DirectPair(sender: other, recipient: actor))
                    {
                        fail(i, .notFriends, "you can only message friends")
                        continue
                    }
                }
                if let clientId {
                    let key = MessageStore.ClientKey(
                        conversationId: conversationId, senderId: actor, clientId: clientId)
                    if let earlier = existing[key] {
                        results[i] = .success(earlier)
                        continue
                    }
                    if let j = firstWithKey[key] {
                        duplicateOf[i] = j
                        continue
                    }
                    firstWithKey[key] = i
                }
                state.lastSeq += 1
                inserts.append(
                    NewMessage(
                        conversationId: conversationId, seq: state.lastSeq, senderId: actor, kind: kind, body: body,
                        clientId: clientId,
                        voiceId: voiceId))
                insertOwners.append(i)
                readMarks.append((conversationId, actor, state.lastSeq))
            case .add(let user):
                guard groupChangeAllowed(i, state, actor, notGroup: "members are added to groups only") else {
                    continue
                }
                guard !state.isActiveMember(user) else {
                    fail(i, .badRequest, "this user is a member already")
                    continue
                }
                guard friends.contains(FriendRepository.Pair(actor, user)) else {
                    fail(i, .notFriends, "you can add your own friends only")
                    continue
                }
                guard state.activeMembers.count < maxGroupMembers else {
                    fail(i, .tooMany, "a group has at most \(maxGroupMembers) members")
                    continue
                }
                state.lastSeq += 1
                state.version += 1
                state.members[user] = MemberRange(joinedSeq: state.lastSeq - 1)
                try store.addMember(conversationId: conversationId, userId: user, joinedSeq: state.lastSeq - 1)
                system = SystemEvent(event: "member_added", actorId: actor, userIds: [user])
            case .leave:
                guard groupChangeAllowed(i, state, actor, notGroup: "only groups can be left") else { continue }
                state.lastSeq += 1
                state.version += 1
                state.members[actor]?.leftSeq = state.lastSeq
                try store.removeMember(conversationId: conversationId, userId: actor, leftSeq: state.lastSeq)
                system = SystemEvent(event: "member_left", actorId: actor, userIds: [actor])
            case .rename(let name):
                guard groupChangeAllowed(i, state, actor, notGroup: "only groups have names") else { continue }
                state.lastSeq += 1
                state.version += 1
                state.name = name
                try store.rename(conversationId: conversationId, name: name)
                system = SystemEvent(event: "renamed", actorId: actor, name: name)
            case .delete(let messageId):
                // A message the actor cannot see is answered exactly as one that does not exist.
                guard let info = try store.messageInfo(messageId: messageId), info.conversationId == conversationId,
                    info.kind != "system", !info.deleted, state.members[actor]?.sees(info.seq) == true
                else {
                    results[i] = .failure(.noSuchMessage)
                    continue
                }
                guard state.isActiveMember(actor) else {
                    results[i] = .failure(.notMember)
                    continue
                }
                guard info.senderId == actor else {
                    fail(i, .forbidden, "only the sender can delete a message for everyone")
                    continue
                }
                state.lastSeq += 1
                try store.markDeleted(messageId: messageId)
                system = SystemEvent(event: "message_deleted", actorId: actor, messageId: messageId)
            case .remove(let messageId):
                guard let info = try store.messageInfo(messageId: messageId), info.conversationId == conversationId,
                    info.kind != "system", !info.deleted
                else {
                    results[i] = .failure(.noSuchMessage)
                    continue
                }
                state.lastSeq += 1
                try store.markRemoved(messageId: messageId)
                system = SystemEvent(event: "message_removed", messageId: messageId)
            case .system(let event):
                state.lastSeq += 1
                system = event
            case .announce:
                continue
            }
            if let system {
                inserts.append(
                    NewMessage(
                        conversationId: conversationId, seq: state.lastSeq, senderId: nil, kind: .system,
                        body: system.json, clientId: nil))
                insertOwners.append(i)
            }
            states[conversationId] = state
            changed[conversationId] = ConversationHead(lastSeq: state.lastSeq, version: state.version)
        }
        let (rows, transactionId) = try store.write(inserts, heads: changed, marks: readMarks)
        for (k, message) in rows.enumerated() {
            results[insertOwners[k]] = .success(message)
            stored[insertOwners[k]] = true
        }
        for (i, j) in duplicateOf { results[i] = results[j] }
        // Only the touched and loaded states go back to the cache.
        var touched: [Int64: ConversationState] = [:]
        for request in batch { if let s = states[request.conversationId] { touched[request.conversationId] = s } }
        return Outcome(
            results: results.map { $0 ?? .failure(ServiceError.invariant("a batch request left without a result")) },
            states: touched,
            stored: stored,
            transactionId: transactionId)
    }
}
