//===----------------------------------------------------------------------===//
//
// This source file is part of the Switchboard open source project
//
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//

import SwitchboardLoadKit
import Testing

@Suite struct RunMarkerTests {
    @Test func findsTheMarkInAnEventFrame() {
        let mark = RunMarker.make(sent: 1_234_567_890_123, k: 42)
        let frame = Array(
            #"{"ev":"community.notification","notification":{"id":7,"title":"\#(mark)","kind":"event"}}"#.utf8)
        let found = RunMarker.find(in: frame)
        #expect(found?.sent == 1_234_567_890_123)
        #expect(found?.k == 42)
    }

    @Test func findsTheMarkWithWhitespaceAndAfterLookalikes() {
        // "lt.5" without a second number, and "lt.x.1", are not marks; the real one follows them.
        let frame = Array(#"{"ev": "post.new", "a": "lt.5", "b": "lt.x.1", "post": {"text": "lt.99.3"}}"#.utf8)
        let found = RunMarker.find(in: frame)
        #expect(found?.sent == 99)
        #expect(found?.k == 3)
    }

    @Test func aFrameWithoutAMarkHasNone() {
        #expect(
            RunMarker.find(in: Array(#"{"ev":"community.notification","notification":{"title":"Walk"}}"#.utf8)) == nil)
        #expect(RunMarker.find(in: Array(#"{"t":"lt.12.4x"}"#.utf8)) == nil)
        #expect(RunMarker.find(in: Array(#""lt."#.utf8)) == nil)
        #expect(RunMarker.find(in: []) == nil)
    }
}
