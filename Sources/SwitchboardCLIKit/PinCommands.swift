//===----------------------------------------------------------------------===//
//
// This source file is part of the Switchboard open source project
//
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//

import Foundation
import SwitchboardClient
import SwitchboardProtocol

// pins CHAT, pin CHAT [SEQ], unpin CHAT SEQ (docs/cli.md, "Pinned messages").
extension CLIContext {
    /// `pins CHAT`: the chat's pinned messages, latest pin first, each with its seq (what `pin` and `unpin` take).
    public func listPins(chat target: String) async throws(CLIError) {
        try await withSession { session throws(CLIError) in
            let (conversation, names) = try await openChat(target, session)
            let result: PinsResult
            do throws(SwitchboardClientError) {
                result = try await session.client.pins(conversation.conversationId)
            } catch { throw fail(error, "reading the pinned messages", session.url) }
            if result.pins.isEmpty { printer.hint("no pinned messages in \(conversation.name)") }
            for pin in result.pins { printer.emit(Self.pinRecord(pin, names: names)) }
            printer.emit(
                OutputRecord(
                    "pins",
                    [
                        "conversation_id": .int(result.conversationId), "count": .int(Int64(result.pins.count)),
                        "max_pins": .int(Int64(result.maxPins)),
                    ],
                    text: "\(result.pins.count) of at most \(result.maxPins) pinned in \(conversation.name)",
                    style: .dim))
        }
    }

    /// `pin CHAT [SEQ]`: pins the message at `seq` of a chat (default: its latest message that is not a system
    /// message); pinning a pinned message changes nothing.
    public func pin(chat target: String, seq: Int64?) async throws(CLIError) {
        try await withSession { session throws(CLIError) in
            let (conversation, names) = try await openChat(target, session)
            let message = try await findMessage(conversation.conversationId, seq: seq, session)
            let result: PinResult
            do throws(SwitchboardClientError) { result = try await session.client.pin(message.id) } catch {
                throw fail(error, "pinning", session.url)
            }
            var record = Self.pinRecord(result.pin, names: names)
            record.type = "pin.added"
            record.text = "pinned: " + record.text
            record.style = .success
            printer.emit(record)
        }
    }

    /// `unpin CHAT SEQ`: unpins the message at `seq` of a chat; unpinning what is not pinned changes nothing.
    public func unpin(chat target: String, seq: Int64) async throws(CLIError) {
        try await withSession { session throws(CLIError) in
            let (conversation, _) = try await openChat(target, session)
            let message = try await findMessage(conversation.conversationId, seq: seq, session)
            do throws(SwitchboardClientError) { _ = try await session.client.unpin(message.id) } catch {
                throw fail(error, "unpinning", session.url)
            }
            printer.emit(
                OutputRecord(
                    "pin.removed",
                    [
                        "conversation_id": .int(conversation.conversationId), "message_id": .int(message.id),
                        "seq": .int(message.seq),
                    ],
                    text: "unpinned #\(message.seq) in \(conversation.name)", style: .success))
        }
    }

    /// A pinned message: `📌 #7 [10:00] Bob: the address  (pinned by Cat)`.
    static func pinRecord(_ pin: MessagePin, names: NameBook) -> OutputRecord {
        var record = EventFormatter.message(pin.message, names: names, history: true)
        record.type = "pin"
        record.fields["history"] = nil
        record.fields["pinned_by"] = pin.pinnedBy.map { .int($0) } ?? .null
        record.fields["pinned_at"] = .string(pin.pinnedAt)
        let by = pin.pinnedBy.map { names.name($0) } ?? "a deleted account"
        record.text = "📌 #\(pin.message.seq) \(record.text)  (pinned by \(by))"
        return record
    }

    /// The conversation a chat argument names (a friend, a group or `#conversation`, as `chat`), with its members'
    /// names.
    func openChat(_ target: String, _ session: AuthenticatedSession) async throws(CLIError) -> (Conversation, NameBook)
    {
        let client = session.client
        do {
            let friends = try await client.friends()
            let resolved = try TargetResolver.chat(
                TargetQuery.classify(target), friends: friends, conversations: try await client.conversations())
            let conversation: Conversation
            switch resolved {
            case .conversation(let id): conversation = try await client.conversation(id)
            case .friend(let userId, _): conversation = try await client.directConversation(with: userId)
            }
            var names = NameBook(selfId: session.me.userId)
            for friend in friends { names.learn(friend) }
            for member in conversation.members where member.userId != session.me.userId {
                names.names[member.userId] = member.displayName
            }
            return (conversation, names)
        } catch let error as CLIError {
            throw error
        } catch let error as SwitchboardClientError {
            throw fail(error, "opening the chat", session.url)
        } catch {
            throw CLIError("opening the chat: \(error)", exitCode: .serverRefused)
        }
    }

    /// The message at `seq` of a conversation, or (nil) its latest message that is not a system message.
    func findMessage(
        _ conversationId: Int64, seq: Int64?, _ session: AuthenticatedSession
    ) async throws(CLIError) -> Message {
        let client = session.client
        do {
            guard let seq else {
                let page = try await client.history(conversationId, limit: 20)
                guard let latest = page.messages.first(where: { $0.kind != .system && $0.deleted != true }) else {
                    throw CLIError("no message to pin among the latest 20; give its SEQ", exitCode: .usage)
                }
                return latest
            }
            // `before` is exclusive: the page before seq + 1 starts at seq (no overflow: seq < Int64.max).
            guard seq >= 1, seq < Int64.max,
                let message = try await client.history(conversationId, before: seq + 1, limit: 1).messages.first,
                message.seq == seq
            else { throw CLIError("no message \(seq) in that conversation", exitCode: .usage) }
            return message
        } catch let error as CLIError {
            throw error
        } catch let error as SwitchboardClientError {
            throw fail(error, "finding the message", session.url)
        } catch {
            throw CLIError("finding the message: \(error)", exitCode: .serverRefused)
        }
    }
}
