//===----------------------------------------------------------------------===//
//
// This source file is part of the Switchboard open source project
//
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//

import Foundation
import SwitchboardCLIKit
import SwitchboardClient
import SwitchboardProtocol
import Testing

/// A deterministic generator (SplitMix64) for reproducible SDP.
struct SeededGenerator: RandomNumberGenerator {
    var state: UInt64
    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}

func user(_ id: Int64, _ name: String) -> UserSummary { UserSummary(userId: id, displayName: name) }

func conversation(_ id: Int64, kind: String, name: String, active: Bool = true) -> Conversation {
    Conversation(
        conversationId: id, kind: kind, name: name, members: [], lastSeq: 0, lastActivityAt: "2026-11-23T12:00:00Z",
        readSeq: 0, unreadCount: 0, lastMessage: nil, active: active)
}

@Suite("Terminal client: argument and target resolution")
struct TargetResolutionTests {
    @Test func classifiesPhonesIdsAndNames() {
        #expect(TargetQuery.classify("+15551234567") == .phone("+15551234567"))
        #expect(TargetQuery.classify("(555) 123-4567") == .phone("(555) 123-4567"))
        #expect(TargetQuery.classify("42") == .id(42))
        #expect(TargetQuery.classify("#1234567") == .id(1_234_567))
        #expect(TargetQuery.classify(" Bob ") == .name("Bob"))
        #expect(TargetQuery.classify("Team 7") == .name("Team 7"))
    }

    @Test func resolvesFriendsExactlyThenByUniquePrefix() throws {
        let friends = [user(2, "Bob"), user(3, "bobby"), user(4, "Cleo")]
        #expect(try TargetResolver.friend(.name("bob"), in: friends).userId == 2)
        #expect(try TargetResolver.friend(.name("cl"), in: friends).userId == 4)
        #expect(try TargetResolver.friend(.id(3), in: friends).userId == 3)
        #expect(throws: CLIError.self) { try TargetResolver.friend(.name("bo"), in: friends) }  // Bob or bobby
        do {
            _ = try TargetResolver.friend(.name("Zed"), in: friends)
            Issue.record("an unknown friend resolved")
        } catch {
            #expect(error.exitCode == .usage)
            #expect(error.message.contains("did you mean"))
        }
        #expect(throws: CLIError.self) { try TargetResolver.friend(.id(99), in: friends) }
        let twins = [user(5, "Ann"), user(6, "ann")]
        do {
            _ = try TargetResolver.friend(.name("Ann"), in: twins)
            Issue.record("an ambiguous name resolved")
        } catch {
            #expect(error.message.contains("several friends"))
        }
    }

    @Test func resolvesChatTargetsAmongFriendsAndGroups() throws {
        let friends = [user(2, "Bob"), user(4, "Cleo")]
        let conversations = [
            conversation(10, kind: "direct", name: "Bob"), conversation(11, kind: "group", name: "Climbing"),
            conversation(12, kind: "group", name: "Old", active: false), conversation(13, kind: "group", name: "Cleo"),
        ]
        #expect(
            try TargetResolver.chat(.name("bob"), friends: friends, conversations: conversations)
                == .friend(userId: 2, name: "Bob"))
        #expect(
            try TargetResolver.chat(.name("climbing"), friends: friends, conversations: conversations)
                == .conversation(11))
        #expect(
            try TargetResolver.chat(.name("Clim"), friends: friends, conversations: conversations) == .conversation(11))
        #expect(try TargetResolver.chat(.id(12), friends: friends, conversations: conversations) == .conversation(12))
        // A friend and a group with the same name: ambiguous, and the message names both.
        do {
            _ = try TargetResolver.chat(.name("Cleo"), friends: friends, conversations: conversations)
            Issue.record("an ambiguous target resolved")
        } catch {
            #expect(error.message.contains("friend #4") && error.message.contains("group #13"))
        }
        // A group one has left is not a target by name.
        #expect(throws: CLIError.self) {
            try TargetResolver.chat(.name("Old"), friends: friends, conversations: conversations)
        }
        #expect(throws: CLIError.self) {
            try TargetResolver.chat(.id(99), friends: friends, conversations: conversations)
        }
    }

    @Test func resolvesIncomingRequestsByIdPhoneAndName() throws {
        let incoming = [
            PendingFriendRequest(requestId: 7, from: user(2, "Bob"), to: user(1, "Ann"), createdAt: "t"),
            PendingFriendRequest(requestId: 8, from: user(3, "Cleo"), to: user(1, "Ann"), createdAt: "t"),
        ]
        #expect(try TargetResolver.incomingRequest(.id(8), incoming: incoming, phoneMatch: nil).requestId == 8)
        #expect(try TargetResolver.incomingRequest(.phone("+1555"), incoming: incoming, phoneMatch: 2).requestId == 7)
        #expect(try TargetResolver.incomingRequest(.name("cleo"), incoming: incoming, phoneMatch: nil).requestId == 8)
        #expect(throws: CLIError.self) {
            try TargetResolver.incomingRequest(.phone("+1555"), incoming: incoming, phoneMatch: nil)
        }
        #expect(throws: CLIError.self) {
            try TargetResolver.incomingRequest(.id(1), incoming: incoming, phoneMatch: nil)
        }
    }
}

@Suite("Terminal client: generated SDP")
struct SDPGeneratorTests {
    @Test func offersAreWellFormedForVoiceAndVideo() {
        var rng = SeededGenerator(state: 1)
        let voice = SDPGenerator.offer(video: false, using: &rng)
        #expect(SDPGenerator.problems(in: voice).isEmpty)
        #expect(SDPGenerator.mediaKinds(in: voice) == ["audio"])
        #expect(voice.hasPrefix("v=0\r\no=- "))
        #expect(voice.contains("a=rtpmap:111 opus/48000/2\r\n"))
        #expect(voice.contains("a=setup:actpass\r\n"))
        #expect(voice.contains("a=group:BUNDLE 0\r\n"))
        let video = SDPGenerator.offer(video: true, using: &rng)
        #expect(SDPGenerator.problems(in: video).isEmpty)
        #expect(SDPGenerator.mediaKinds(in: video) == ["audio", "video"])
        #expect(video.contains("a=rtpmap:96 VP8/90000\r\n"))
        #expect(video.contains("a=group:BUNDLE 0 1\r\n"))
        #expect(video.utf8.count < 16 * 1024)  // the server's SDP limit
        // Every line ends with CRLF; no bare LF.
        #expect(!video.replacingOccurrences(of: "\r\n", with: "").contains("\n"))
    }

    @Test func answersMirrorTheOfferAndTakeTheActiveRole() {
        var rng = SeededGenerator(state: 2)
        let offer = SDPGenerator.offer(video: true, using: &rng)
        let answer = SDPGenerator.answer(to: offer, using: &rng)
        #expect(SDPGenerator.problems(in: answer).isEmpty)
        #expect(SDPGenerator.mediaKinds(in: answer) == ["audio", "video"])
        #expect(answer.contains("a=setup:active\r\n"))
        #expect(SDPGenerator.mediaKinds(in: SDPGenerator.answer(to: nil, using: &rng)) == ["audio"])
    }

    @Test func theValidatorFindsWhatIsMissing() {
        var rng = SeededGenerator(state: 3)
        let good = SDPGenerator.offer(video: false, using: &rng)
        #expect(!SDPGenerator.problems(in: good.replacingOccurrences(of: "a=setup:actpass\r\n", with: "")).isEmpty)
        #expect(
            !SDPGenerator.problems(in: good.replacingOccurrences(of: "a=rtpmap:111 opus/48000/2\r\n", with: "")).isEmpty
        )
        #expect(
            !SDPGenerator.problems(in: good.replacingOccurrences(of: "a=group:BUNDLE 0", with: "a=group:BUNDLE 1"))
                .isEmpty)
        #expect(!SDPGenerator.problems(in: good.replacingOccurrences(of: "\r\n", with: "\n")).isEmpty)
        #expect(SDPGenerator.problems(in: "hello") == ["the first line must be v=0"])
    }

    @Test func candidatesFollowTheCandidateGrammar() {
        var rng = SeededGenerator(state: 4)
        let candidates = SDPGenerator.iceCandidates(count: 2, using: &rng)
        #expect(candidates.count == 2)
        for c in candidates {
            let f = c.split(separator: " ")
            #expect(f[0].hasPrefix("candidate:"))
            #expect(
                f[1] == "1" && f[2] == "udp" && Int(f[3]) != nil && Int(f[5]) != nil && f[6] == "typ" && f[7] == "host")
        }
        #expect(Set(candidates).count == 2)
    }

    /// Candidates travel as the JSON of a browser's RTCIceCandidateInit, not as a bare `candidate:` line.
    @Test func candidatePayloadsAreRTCIceCandidateInitJSON() throws {
        let line = "candidate:1 1 udp 2122260223 192.0.2.10 50000 typ host generation 0"
        let payload = SDPGenerator.candidatePayload(line)
        let object = try #require(try JSONSerialization.jsonObject(with: Data(payload.utf8)) as? [String: Any])
        #expect(object["candidate"] as? String == line)
        #expect(object["sdpMid"] as? String == "0")
        #expect(object["sdpMLineIndex"] as? Int == 0)
        #expect(SDPGenerator.candidateLine(ofPayload: payload) == line)
        #expect(SDPGenerator.candidateLine(ofPayload: line) == nil)
        func signal(_ payload: String) throws -> CallEvents.Signal {
            let json = try JSONSerialization.data(withJSONObject: [
                "callId": "c", "kind": "ice_candidate", "payload": payload,
            ])
            return try JSONDecoder().decode(CallEvents.Signal.self, from: json)
        }
        #expect(
            EventFormatter.summary(ofSignal: try signal(SDPGenerator.candidatePayload(""))) == "(end of candidates)")
        #expect(EventFormatter.summary(ofSignal: try signal(payload)) == line)
    }
}

@Suite("Terminal client: config files")
struct ProfileStoreTests {
    @Test func savesPrivatelyLoadsAndDeletes() throws {
        let root = NSTemporaryDirectory() + "switchboard-cli-test-\(UUID().uuidString)"
        defer { try? FileManager.default.removeItem(atPath: root) }
        let store = try ProfileStore(directory: root + "/nested/switchboard", profile: "work")
        #expect(try store.load() == nil)
        let profile = Profile(
            server: "ws://127.0.0.1:9/ws", token: "secret", userId: 5, sessionId: 9, phone: "+15550001111",
            displayName: "Ann")
        try store.save(profile)
        #expect(store.path.hasSuffix("/nested/switchboard/work.json"))
        #expect(ProfileStore.mode(of: store.path) == 0o600)
        #expect(ProfileStore.mode(of: store.directory) == 0o700)
        #expect(try store.load() == profile)
        // Overwriting keeps the mode; no temporary files are left behind.
        var changed = profile
        changed.token = "other"
        try store.save(changed)
        #expect(try store.load()?.token == "other")
        #expect(ProfileStore.mode(of: store.path) == 0o600)
        #expect(try FileManager.default.contentsOfDirectory(atPath: store.directory).sorted() == ["work.json"])
        store.recordCurrentCall("call-1")
        #expect(store.currentCall() == "call-1")
        #expect(ProfileStore.mode(of: store.callPath) == 0o600)
        try store.delete()
        #expect(try store.load() == nil)
        #expect(store.currentCall() == nil)
    }

    @Test func aBrokenFileIsALocalFileError() throws {
        let root = NSTemporaryDirectory() + "switchboard-cli-test-\(UUID().uuidString)"
        defer { try? FileManager.default.removeItem(atPath: root) }
        let store = try ProfileStore(directory: root, profile: "default")
        try FileManager.default.createDirectory(atPath: root, withIntermediateDirectories: true)
        #expect(FileManager.default.createFile(atPath: store.path, contents: Data("{not json".utf8)))
        do {
            _ = try store.load()
            Issue.record("a broken profile loaded")
        } catch {
            #expect(error.exitCode == .localFile)
        }
    }

    @Test func profileNamesAndTheDefaultFolder() throws {
        #expect(throws: CLIError.self) { try ProfileStore(directory: "/tmp", profile: "../etc") }
        #expect(throws: CLIError.self) { try ProfileStore(directory: "/tmp", profile: "") }
        #expect(throws: CLIError.self) { try ProfileStore(directory: "/tmp", profile: ".hidden") }
        #expect(try ProfileStore(directory: "/tmp", profile: "work-2.b_c").profile == "work-2.b_c")
        #expect(ProfileStore.defaultDirectory(environment: ["SWITCHBOARD_CONFIG_DIR": "/x", "HOME": "/h"]) == "/x")
        #expect(
            ProfileStore.defaultDirectory(environment: ["XDG_CONFIG_HOME": "/xdg", "HOME": "/h"]) == "/xdg/switchboard")
        #expect(
            ProfileStore.defaultDirectory(environment: ["XDG_CONFIG_HOME": "relative", "HOME": "/h"])
                == "/h/.config/switchboard")
        #expect(ProfileStore.defaultDirectory(environment: ["HOME": "/h"]) == "/h/.config/switchboard")
    }
}

@Suite("Terminal client: output")
struct OutputTests {
    let names = NameBook(selfId: 1, names: [2: "Bob"])

    @Test func jsonLinesHaveSortedStableKeysAndAType() {
        let record = OutputRecord("call.ended", ["reason": "hangup", "duration_ms": 3200, "call_id": "c1"], text: "x")
        #expect(
            OutputFormatter.render(record, mode: .json)
                == #"{"call_id":"c1","duration_ms":3200,"reason":"hangup","type":"call.ended"}"#)
    }

    @Test func humanLinesAreColouredOnlyWhenAskedAndSanitized() {
        let record = OutputRecord("x", text: "hi\u{1B}[2Jthere", style: .success)
        #expect(OutputFormatter.render(record, mode: .human(color: false)) == "hi\u{FFFD}[2Jthere")
        #expect(OutputFormatter.render(record, mode: .human(color: true)) == "\u{1B}[32mhi\u{FFFD}[2Jthere\u{1B}[0m")
        #expect(OutputMode.detect(json: false, stdoutIsTerminal: true, environment: [:]) == .human(color: true))
        #expect(
            OutputMode.detect(json: false, stdoutIsTerminal: true, environment: ["NO_COLOR": "1"])
                == .human(color: false))
        #expect(OutputMode.detect(json: false, stdoutIsTerminal: false, environment: [:]) == .human(color: false))
        #expect(OutputMode.detect(json: true, stdoutIsTerminal: true, environment: [:]) == .json)
    }

    @Test func messagesAndCallEventsReadWell() throws {
        let m = Message(
            id: 9, conversationId: 4, seq: 3, senderId: 2, kind: .text, text: "hello", ts: "2026-11-23T12:34:56Z")
        let record = EventFormatter.message(m, names: names)
        #expect(record.text == "[12:34] Bob: hello")
        #expect(record.fields["text"] == .string("hello"))
        #expect(record.fields["sender"] == .string("Bob"))
        let mine = Message(
            id: 10, conversationId: 4, seq: 4, senderId: 1, kind: .text, text: "yo", ts: "2026-11-23T12:35:00Z")
        #expect(EventFormatter.message(mine, names: names).text == "[12:35] you: yo")

        let record1 = Message(
            id: 11, conversationId: 4, seq: 5, senderId: nil, kind: .system,
            system: SystemNotice(
                event: "call", actorId: 2, callId: "c1", media: "video", outcome: "completed", durationMs: 4250),
            ts: "2026-11-23T12:36:00Z")
        #expect(EventFormatter.message(record1, names: names).text == "[12:36] * Bob's video call: completed, 4.2 s")
        let missed = Message(
            id: 12, conversationId: 4, seq: 6, senderId: nil, kind: .system,
            system: SystemNotice(
                event: "call", actorId: 1, callId: "c2", media: "voice", outcome: "missed", durationMs: 0),
            ts: "2026-11-23T12:37:00Z")
        #expect(EventFormatter.message(missed, names: names).text.hasSuffix("* your voice call: missed"))

        let ended = RawEvent(
            name: "call.ended",
            frame: Array(#"{"ev":"call.ended","call_id":"c1","reason":"hangup","duration_ms":4250}"#.utf8))
        let endedRecord = try #require(EventFormatter.call(ended, names: names) as OutputRecord?)
        #expect(endedRecord.text == "call ended: hangup, duration 4.2 s")
        #expect(endedRecord.fields["duration_ms"] == JSONValue.int(4250))
        let ring = RawEvent(
            name: "call.ring",
            frame: Array(
                #"{"ev":"call.ring","call_id":"c2","caller":{"user_id":2,"display_name":"Bob"},"media":"video"}"#.utf8))
        #expect(EventFormatter.call(ring, names: names)?.text == "incoming video call from Bob (call c2)")
        let ringing = RawEvent(
            name: "call.ringing", frame: Array(#"{"ev":"call.ringing","call_id":"c2","devices":2}"#.utf8))
        #expect(EventFormatter.call(ringing, names: names)?.text == "ringing on 2 devices…")
        #expect(EventFormatter.sketch(Array(repeating: 31, count: 100)) == String(repeating: "█", count: 20))
    }

    @Test func callOutcomesMapToExitCodes() {
        #expect(CallOutcome.exitCode(reason: "hangup") == .ok)
        for reason in ["declined", "busy", "unavailable", "timeout", "cancelled"] {
            #expect(CallOutcome.exitCode(reason: reason) == .callNotAnswered)
        }
        #expect(CallOutcome.exitCode(reason: "connection_lost") == .connection)
    }

    @Test func clientErrorsBecomeClearMessagesAndExitCodes() {
        let url = "ws://127.0.0.1:1/ws"
        #expect(
            CLIError(.server(ServerError(code: "invalid_credentials", message: "x")), while: "logging in", server: url)
                .message == "logging in: wrong phone number or password")
        #expect(
            CLIError(.server(ServerError(code: "invalid_token", message: "x")), while: "w", server: url).exitCode
                == .notLoggedIn)
        #expect(CLIError(.connectFailed("refused"), while: "w", server: url).exitCode == .connection)
        #expect(CLIError(.connectFailed("refused"), while: "w", server: url).message.contains(url))
        #expect(
            CLIError(.server(ServerError(code: "not_friends", message: "not friends")), while: "calling", server: url)
                .exitCode == .serverRefused)
    }
}
