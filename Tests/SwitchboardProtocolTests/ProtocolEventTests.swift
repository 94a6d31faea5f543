//===----------------------------------------------------------------------===//
//
// This source file is part of the Switchboard open source project
//
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//

import Foundation
import Testing

@testable import SwitchboardProtocol

/// The event names of docs/protocol.md's event tables (tables whose first header cell is `Event`): the first cell
/// of each row.
func documentedEvents() throws -> [String] {
    let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent()
    let text = try String(contentsOf: root.appendingPathComponent("docs/protocol.md"), encoding: .utf8)
    var events: [String] = []
    var inEventTable = false
    for line in text.split(separator: "\n", omittingEmptySubsequences: false) {
        guard line.hasPrefix("|") else {
            inEventTable = false
            continue
        }
        let cells = line.split(separator: "|", omittingEmptySubsequences: false)
            .map { $0.trimmingCharacters(in: .whitespaces) }
        guard cells.count > 2 else { continue }
        if cells[1] == "Event" {
            inEventTable = true
            continue
        }
        guard inEventTable, !cells[1].hasPrefix("---") else { continue }
        let ticked = cells[1].split(separator: "`", omittingEmptySubsequences: false).enumerated()
            .filter { $0.offset % 2 == 1 }.map { String($0.element) }
        events += ticked
    }
    return events
}

/// The event frame of `bytes` as a JSON object, for comparing a hand-written encoder with the `Codable` form.
func jsonObject(_ bytes: [UInt8]) throws -> NSDictionary {
    try #require(try JSONSerialization.jsonObject(with: Data(bytes)) as? NSDictionary)
}

@Suite struct ProtocolEventTests {
    @Test func everyEventNameIsDeclaredOnce() {
        let names = ProtocolSchema.eventNames
        let repeated = Dictionary(grouping: names, by: { $0 }).filter { $0.value.count > 1 }.keys.sorted()
        #expect(repeated == [], "events declared more than once")
        // 50, message.pinned, message.unpinned (issue 36's worked example), post.photos (issue 37)
        #expect(names.count == 53)
        // The account events of `ServerEvent` are among them.
        #expect(Set(ServerEvent.Name.allCases.map(\.rawValue)).isSubset(of: Set(names)))
    }

    @Test func docsDocumentEveryEventOnceAndNoOther() throws {
        let documented = try documentedEvents()
        let declared = Set(ProtocolSchema.eventNames)
        #expect(Set(documented).subtracting(declared).sorted() == [], "documented but not declared")
        #expect(declared.subtracting(documented).sorted() == [], "declared but not documented")
        let repeated = Dictionary(grouping: documented, by: { $0 }).filter { $0.value.count > 1 }.keys.sorted()
        #expect(repeated == [], "documented in more than one event table row")
    }

    @Test func theTypedEncoderWritesTheEventsName() throws {
        let event = CallEvents.Ringing(callId: "c1", devices: 2)
        #expect(text(ProtocolCodec.encodeEvent(event)) == #"{"call_id":"c1","devices":2,"ev":"call.ringing"}"#)
        #expect(ProtocolCodec.encodeAnyEvent(event) == ProtocolCodec.encodeEvent(event))
        #expect(
            text(ProtocolCodec.encodeEvent(CallEvents.Accepted(callId: "c1")))
                == #"{"call_id":"c1","ev":"call.accepted"}"#)
    }

    @Test func presenceFastPathsMatchTheCodableForm() throws {
        let online = PresenceUpdate(userId: 7, status: "online")
        let offline = PresenceUpdate(userId: 8, status: "offline", lastSeen: "2026-11-23T10:00:00.123Z")
        for update in [online, offline] {
            #expect(try jsonObject(update.eventJSON) == jsonObject(ProtocolCodec.encodeEvent(update)))
        }
        #expect(
            text(offline.eventJSON)
                == #"{"ev":"presence","last_seen":"2026-11-23T10:00:00.123Z","status":"offline","user_id":8}"#)
        for snapshot in [PresenceSnapshot(presence: []), PresenceSnapshot(presence: [online, offline])] {
            #expect(try jsonObject(snapshot.eventJSON) == jsonObject(ProtocolCodec.encodeEvent(snapshot)))
        }
    }

    @Test func typingFastPathMatchesTheCodableForm() throws {
        let typing = TypingUpdate(conversationId: 5, userId: 7, activity: "typing", active: true, expiresInMs: 5000)
        let stopped = TypingUpdate(
            conversationId: 5, userId: 7, activity: "rec\"ord\\ing", active: false, expiresInMs: 0)
        for update in [typing, stopped] {
            #expect(try jsonObject(update.eventJSON) == jsonObject(ProtocolCodec.encodeEvent(update)))
        }
        #expect(
            text(typing.eventJSON)
                == #"{"activity":"typing","active":true,"conversation_id":5,"ev":"typing","expires_in_ms":5000,"#
                + #""user_id":7}"#)
    }

    @Test func theMessageFastPathMatchesTheCodableForm() throws {
        let system = ChatMessage(
            id: 42, conversationId: 7, seq: 3, senderId: nil, kind: .system,
            system: SystemEvent(event: "member_added", actorId: 1, userIds: [2]), ts: "2026-11-23T10:00:00.123Z")
        let text = ChatMessage(
            id: 43, conversationId: 7, seq: 4, senderId: 1, kind: .text,
            text: "quote \" backslash \\ newline \n é 👍",
            clientId: "c-1", ts: "2026-11-23T10:00:00.124Z")
        let voice = ChatMessage(
            id: 44, conversationId: 7, seq: 5, senderId: 2, kind: .voice,
            voice: VoiceAttachment(
                voiceId: 3, durationMs: 1200, waveform: [0, 31, 7], size: 999, mimeType: "audio/ogg"),
            ts: "2026-11-23T10:00:00.125Z")
        let tombstone = ChatMessage(
            id: 45, conversationId: 7, seq: 6, senderId: 9, kind: .text, ts: "2026-11-23T10:00:00.126Z", deleted: true,
            senderDeleted: true)
        for m in [system, text, voice, tombstone] {
            let event = MessageEvent(message: m)
            #expect(try jsonObject(event.eventJSON) == jsonObject(ProtocolCodec.encodeEvent(event)))
            let decoder = JSONDecoder()
            decoder.keyDecodingStrategy = .convertFromSnakeCase
            #expect(try decoder.decode(MessageEvent.self, from: Data(event.eventJSON)) == event)
        }
    }
}
