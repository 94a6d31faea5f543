//===----------------------------------------------------------------------===//
//
// This source file is part of the Switchboard open source project
//
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//

import SwitchboardProtocol
import Testing

@testable import SwitchboardClient

/// How the client classifies a server frame: events it passes on raw are found by a scan of the top-level object
/// (no JSON parse), everything else gets the one full parse.
@Suite struct IncomingFrameTests {
    static func bytes(_ text: String) -> [UInt8] { Array(text.utf8) }

    @Test func theScanFindsTheTopLevelNameAfterNestedValuesAndEscapes() {
        let frame = Self.bytes(
            #"{"call_id":"c\"1","caller":{"ev":"nested","list":[1,{"a":"]}"}]},"#
                + #""n":-1.5e3,"ok":true, "ev" : "call.ring","z":null}"#
        )
        #expect(TopLevelScan.eventName(frame) == "call.ring")
        #expect(
            TopLevelScan.eventName(Self.bytes(#"{"ev":"community.notification","notification":{"title":"lt.1.2"}}"#))
                == "community.notification")
    }

    @Test func theScanGivesUpWhereTheFullParseMustDecide() {
        #expect(TopLevelScan.eventName(Self.bytes(#"{"re":1,"ok":{}}"#)) == nil)
        #expect(TopLevelScan.eventName(Self.bytes(#"{"ev":"a\u0062"}"#)) == nil)
        #expect(TopLevelScan.eventName(Self.bytes(#"{"e\u0076":"x"}"#)) == nil)
        #expect(TopLevelScan.eventName(Self.bytes(#"["ev","x"]"#)) == nil)
        #expect(TopLevelScan.eventName(Self.bytes(#"{"a":{"b":1"#)) == nil)
        #expect(TopLevelScan.eventName(Self.bytes(#"{"ev":3}"#)) == nil)
        #expect(TopLevelScan.eventName(Self.bytes(#"{"ev":"unterminated"#)) == nil)
        #expect(TopLevelScan.eventName(Self.bytes(#"{"ev":"a","ev":"b"}"#)) == nil)
        #expect(TopLevelScan.eventName(Self.bytes(#"{"ev":"a","x":1"#)) == nil)
        #expect(TopLevelScan.eventName(Self.bytes(#"{"ev":"a"} trailing"#)) == nil)
        #expect(TopLevelScan.eventName(Self.bytes(#"{"ev":"a","x":}"#)) == nil)
        #expect(TopLevelScan.eventName([]) == nil)
    }

    @Test func aRawEventKeepsItsFrameNameAndArrivalTime() throws {
        let frame = Self.bytes(#"{"call_id":"c1","ev":"call.ended","reason":"hangup"}"#)
        guard case .event(.other(let raw)) = try IncomingFrame.decode(frame, receivedAt: 42) else {
            Issue.record("not a raw event")
            return
        }
        #expect(raw.name == "call.ended" && raw.frame == frame && raw.receivedAt == 42)
        // Equality is by name and frame: an event built by hand equals the one received.
        #expect(raw == RawEvent(name: "call.ended", frame: frame))
    }

    @Test func modelledEventsAndRepliesStillGetTheFullParse() throws {
        guard
            case .event(.typing(let typing)) = try IncomingFrame.decode(
                Self.bytes(
                    #"{"active":true,"activity":"typing","conversation_id":5,"ev":"typing","#
                        + #""expires_in_ms":5000,"user_id":7}"#
                ))
        else {
            Issue.record("not a typing event")
            return
        }
        #expect(typing.conversationId == 5 && typing.userId == 7 && typing.active)
        guard case .reply(let id, _) = try IncomingFrame.decode(Self.bytes(#"{"ok":{},"re":3}"#)) else {
            Issue.record("not a reply")
            return
        }
        #expect(id == .int(3))
        // A modelled name whose fields do not parse is an error, as before the scan.
        #expect(throws: (any Error).self) { try IncomingFrame.decode(Self.bytes(#"{"ev":"typing","user_id":"x"}"#)) }
    }
}
