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

/// `chat TARGET`: the last 10 messages, then live messages, typing and presence; each input line is sent;
/// `/more`, `/voice FILE`, `/quit`.
public struct ChatSession: Sendable {
    public let context: CLIContext
    public let target: String

    public init(context: CLIContext, target: String) {
        self.context = context
        self.target = target
    }

    /// Runs until `/quit`, the end of input or Ctrl-C.
    public func run() async throws(CLIError) -> CLIExitCode {
        try await context.withSession(interactive: true) { session throws(CLIError) in try await chat(session) }
    }

    private func chat(_ session: AuthenticatedSession) async throws(CLIError) -> CLIExitCode {
        let client = session.client
        let printer = context.printer
        let inputs = SessionInputs(client: client)
        var names = NameBook(selfId: session.me.userId)
        let conversation: Conversation
        do {
            let friends = try await client.friends()
            for f in friends { names.learn(f) }
            let query = TargetQuery.classify(target)
            let resolved: ChatTarget
            if case .phone(let phone) = query {
                guard let match = try await client.matchContacts([phone]).first else {
                    throw CLIError("nobody is registered with \(phone)", exitCode: .usage)
                }
                guard friends.contains(where: { $0.userId == match.userId }) else {
                    throw CLIError(
                        """
                        \(match.displayName) (\(phone)) is not your friend yet: `switchboard-cli friends add \(phone)`
                        """,
                        exitCode: .usage)
                }
                resolved = .friend(userId: match.userId, name: match.displayName)
            } else {
                resolved = try TargetResolver.chat(
                    query, friends: friends, conversations: try await client.conversations())
            }
            switch resolved {
            case .conversation(let id): conversation = try await client.conversation(id)
            case .friend(let userId, _): conversation = try await client.directConversation(with: userId)
            }
        } catch let error as CLIError {
            throw error
        } catch let error as SwitchboardClientError {
            throw context.fail(error, "opening the chat", session.url)
        } catch {
            throw CLIError("opening the chat: \(error)", exitCode: .serverRefused)
        }
        for m in conversation.members where m.userId != session.me.userId { names.names[m.userId] = m.displayName }
        let conversationId = conversation.conversationId
        let memberIds = Set(conversation.members.map(\.userId))
        printer.emit(
            OutputRecord(
                "chat.opened",
                [
                    "conversation_id": .int(conversationId), "name": .string(conversation.name),
                    "kind": .string(conversation.kind),
                ],
                text: "chat with \(conversation.name) (conversation \(conversationId))", style: .success))
        printer.hint(
            "type a message and press Enter; /more for older messages, /voice FILE to send a recording, /quit to leave")

        var oldestSeq: Int64?
        var hasMore = false
        // The newest message of another member shown here (what `/react` reacts to).
        var latestFromOthers: Int64?
        do {
            let page = try await client.history(conversationId, limit: 10)
            for m in page.messages.reversed() { printer.emit(EventFormatter.message(m, names: names, history: true)) }
            latestFromOthers =
                page.messages.first { $0.senderId != nil && $0.senderId != session.me.userId && $0.deleted != true }?.id
            oldestSeq = page.messages.map(\.seq).min()
            hasMore = page.hasMore
            if page.messages.isEmpty { printer.hint("no messages yet") }
        } catch {
            throw context.fail(error, "reading the history", session.url)
        }

        // Outgoing messages go through one sender, one after the other, so the server stores them in the order
        // they were typed (concurrent requests could be stored in any order); results come back as input.
        let (outbox, outboxInput) = AsyncStream.makeStream(of: OutgoingItem.self, bufferingPolicy: .unbounded)
        defer { outboxInput.finish() }
        let sender = ChatSender(
            client: client, conversationId: conversationId, continuation: inputs.continuation, context: context,
            url: session.url)
        Task {
            for await item in outbox { await sender.deliver(item) }
        }
        var pendingSends = 0
        var quitting = false
        for await input in inputs.stream {
            switch input {
            case .event(.message(let m)):
                if m.conversationId == conversationId {
                    printer.emit(EventFormatter.message(m, names: names))
                    if m.senderId != nil && m.senderId != session.me.userId { latestFromOthers = m.id }
                } else {
                    printer.emit(
                        EventFormatter.message(m, names: names, conversationName: "conversation \(m.conversationId)"))
                }
            case .event(.typing(let t)):
                if t.conversationId == conversationId && t.userId != session.me.userId,
                    let r = EventFormatter.event(.typing(t), names: names)
                {
                    printer.emit(r)
                }
            case .event(.presence(let p)):
                if memberIds.contains(p.userId) && p.userId != session.me.userId {
                    printer.emit(EventFormatter.presence(p, names: names))
                }
            case .event(.presenceSnapshot(let list)):
                let relevant = list.filter { memberIds.contains($0.userId) && $0.userId != session.me.userId }
                if !relevant.isEmpty, let r = EventFormatter.event(.presenceSnapshot(relevant), names: names) {
                    printer.emit(r)
                }
            case .event, .eventsEnded:
                if let code = input.handleAsOther(names: names, printer: printer) { return code }
            case .line(let raw):
                let line = raw.trimmingCharacters(in: .whitespaces)
                if line.isEmpty || quitting { continue }
                if line == "/quit" || line == "/exit" {
                    if pendingSends == 0 { return .ok }
                    quitting = true
                    inputs.schedule("quit", after: 10)
                } else if line == "/more" {
                    guard hasMore, let before = oldestSeq else {
                        printer.hint("no older messages")
                        continue
                    }
                    do {
                        let page = try await client.history(conversationId, before: before, limit: 10)
                        printer.emit(
                            OutputRecord(
                                "history.page", ["count": .int(Int64(page.messages.count))],
                                text: "── \(page.messages.count) older message(s) ──", style: .dim))
                        for m in page.messages.reversed() {
                            printer.emit(EventFormatter.message(m, names: names, history: true))
                        }
                        oldestSeq = page.messages.map(\.seq).min() ?? oldestSeq
                        hasMore = page.hasMore
                        if !hasMore { printer.hint("that is the beginning of the conversation") }
                    } catch {
                        printer.error(context.fail(error, "reading older messages", session.url).message)
                    }
                } else if line.hasPrefix("/voice") {
                    let path = line.dropFirst("/voice".count).trimmingCharacters(in: .whitespaces)
                    guard let item = voiceItem(path: path) else { continue }
                    pendingSends += 1
                    outboxInput.yield(item)
                } else if line == "/react" || line.hasPrefix("/react ") || line == "/unreact" {
                    let emoji = line.dropFirst("/react".count).trimmingCharacters(in: .whitespaces)
                    guard let messageId = latestFromOthers else {
                        printer.hint("no message of another member to react to yet")
                        continue
                    }
                    guard line == "/unreact" || !emoji.isEmpty else {
                        printer.hint(
                            "usage: /react EMOJI (to the latest message of another member); /unreact removes it")
                        continue
                    }
                    do {
                        let result = try await client.react(
                            to: messageId, emoji: line == "/unreact" ? "-" : emoji, active: line != "/unreact")
                        let summary = result.reactions.map { "\($0.emoji) \($0.count)" }.joined(separator: "  ")
                        printer.emit(
                            OutputRecord(
                                "reaction.set",
                                ["message_id": .int(messageId), "emoji": line == "/unreact" ? .null : .string(emoji)],
                                text: summary.isEmpty ? "reaction removed" : "reactions: \(summary)", style: .dim))
                    } catch {
                        printer.error(context.fail(error, "reacting", session.url).message)
                    }
                } else if line == "/help" {
                    printer.hint(
                        """
                        /more: 10 older messages; /voice FILE: send a WAV, Ogg/Opus or WebM recording; /react EMOJI: \
                        react to the latest message of another member (/unreact removes it); /quit: leave
                        """
                    )
                } else if line.hasPrefix("/") {
                    printer.hint("unknown command \(line); /help lists them")
                } else {
                    pendingSends += 1
                    let clientId = UUID().uuidString
                    printer.emit(
                        OutputRecord(
                            "sending", ["client_id": .string(clientId), "text": .string(line)],
                            text: "you: \(line)  (sending…)", style: .dim))
                    outboxInput.yield(.text(line, clientId: clientId))
                }
            case .record(let r):
                printer.emit(r)
            case .requestFinished:
                pendingSends -= 1
                if quitting && pendingSends == 0 { return .ok }
            case .endOfInput:
                // A script's input ends: leave once every message it sent is acknowledged (at most 10 s).
                if pendingSends == 0 { return .ok }
                if !quitting { inputs.schedule("quit", after: 10) }
                quitting = true
            case .interrupt:
                // Ctrl-C: wait for acknowledgements like /quit; a second Ctrl-C leaves at once.
                if pendingSends == 0 || quitting { return .ok }
                quitting = true
                inputs.schedule("quit", after: 10)
            case .deadline:
                if quitting { return .ok }
            case .media:
                continue
            }
        }
        return .ok
    }

    /// Reads a recording for `/voice`; nil (with the reason shown) when there is nothing to send.
    private func voiceItem(path: String) -> OutgoingItem? {
        let printer = context.printer
        guard !path.isEmpty else {
            printer.hint("usage: /voice FILE")
            return nil
        }
        let expanded = (path as NSString).expandingTildeInPath
        guard let data = FileManager.default.contents(atPath: expanded) else {
            printer.error("cannot read \(expanded)")
            return nil
        }
        let lower = expanded.lowercased()
        let type: String? =
            lower.hasSuffix(".wav")
            ? "audio/wav"
            : lower.hasSuffix(".ogg") || lower.hasSuffix(".opus")
                ? "audio/ogg"
                : lower.hasSuffix(".webm") ? "audio/webm" : nil
        printer.hint("uploading \(data.count) bytes…")
        return .voice(Array(data), contentType: type)
    }
}
