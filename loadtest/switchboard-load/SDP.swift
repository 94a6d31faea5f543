//===----------------------------------------------------------------------===//
//
// This source file is part of the Switchboard open source project
//
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//

/// Well-formed SDP for signalling without media (the server relays it; nobody negotiates media here).
enum SDP {
    static func offer(sessionId: UInt64) -> String { body(sessionId: sessionId, setup: "actpass") }
    static func answer(sessionId: UInt64) -> String { body(sessionId: sessionId, setup: "active") }

    private static func body(sessionId: UInt64, setup: String) -> String {
        [
            "v=0", "o=- \(sessionId) 2 IN IP4 127.0.0.1", "s=-", "t=0 0", "a=group:BUNDLE 0",
            "a=msid-semantic: WMS", "m=audio 9 UDP/TLS/RTP/SAVPF 111", "c=IN IP4 0.0.0.0", "a=rtcp:9 IN IP4 0.0.0.0",
            "a=ice-ufrag:lt\(sessionId % 10000)", "a=ice-pwd:loadtesterpassword0123456",
            "a=fingerprint:sha-256 " + (0..<32).map { _ in "AB" }.joined(separator: ":"),
            "a=setup:\(setup)", "a=mid:0", "a=sendrecv", "a=rtcp-mux", "a=rtpmap:111 opus/48000/2",
            "a=fmtp:111 minptime=10;useinbandfec=1", "",
        ].joined(separator: "\r\n")
    }
}
