//===----------------------------------------------------------------------===//
//
// This source file is part of the Switchboard open source project
//
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//

import Foundation

/// Well-formed WebRTC session descriptions and ICE candidates without any media behind them, so that call
/// signalling can be exercised from a terminal. The shape follows what browsers send (RFC 8866 SDP with
/// BUNDLE, ICE, DTLS-SRTP attributes of RFC 8829): Opus 48 kHz stereo for audio, VP8 for video. The
/// fingerprint is random bytes: no certificate exists, nothing will ever connect to it.
public enum SDPGenerator {
    /// An offer with an audio section and, with `video`, a video section (`setup:actpass`).
    public static func offer(video: Bool, using rng: inout some RandomNumberGenerator) -> String {
        build(kinds: video ? ["audio", "video"] : ["audio"], setup: "actpass", rng: &rng)
    }

    /// An answer to `offer`: the same media sections in the same order (`setup:active`); audio only when the
    /// offer has no recognizable sections.
    public static func answer(to offer: String?, using rng: inout some RandomNumberGenerator) -> String {
        var kinds = offer.map(mediaKinds(in:)) ?? []
        kinds = kinds.filter { $0 == "audio" || $0 == "video" }
        if kinds.isEmpty { kinds = ["audio"] }
        return build(kinds: kinds, setup: "active", rng: &rng)
    }

    /// `count` host candidates in the `a=candidate` grammar of RFC 8839 (without the `a=` prefix), on a
    /// documentation address (192.0.2.0/24).
    public static func iceCandidates(count: Int, using rng: inout some RandomNumberGenerator) -> [String] {
        (0..<max(count, 0)).map { i in
            let port = Int.random(in: 49152...65535, using: &rng)
            let priority = 2_122_260_223 - i * 256
            return "candidate:\(i + 1) 1 udp \(priority) 192.0.2.\(10 + i) \(port) typ host generation 0"
        }
    }

    /// The payload of an `ice_candidate` signal, as browsers need it: the JSON text of an `RTCIceCandidateInit`
    /// (`candidate`, `sdpMid`, `sdpMLineIndex`), which the receiver hands to `RTCPeerConnection.addIceCandidate`.
    /// An empty `candidate` is the end of candidates. All candidates of a BUNDLE ride on the first section (mid `0`).
    public static func candidatePayload(_ candidate: String, sdpMid: String = "0", sdpMLineIndex: Int = 0) -> String {
        let value = CandidateInit(candidate: candidate, sdpMid: sdpMid, sdpMLineIndex: sdpMLineIndex)
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        return (try? encoder.encode(value)).map { String(decoding: $0, as: UTF8.self) } ?? "{}"
    }

    /// The `candidate` line of an `ice_candidate` payload (`""`: the end of candidates), or nil if the payload is
    /// not the JSON of an `RTCIceCandidateInit`.
    public static func candidateLine(ofPayload payload: String) -> String? {
        try? JSONDecoder().decode(CandidateInit.self, from: Data(payload.utf8)).candidate
    }

    /// `RTCIceCandidateInit` as browsers serialise it.
    struct CandidateInit: Codable {
        var candidate: String
        var sdpMid: String?
        var sdpMLineIndex: Int?
    }

    /// The kinds of the `m=` lines, in order (`audio`, `video`, ...).
    public static func mediaKinds(in sdp: String) -> [String] {
        lines(of: sdp).compactMap { line in
            guard line.hasPrefix("m=") else { return nil }
            return line.dropFirst(2).split(separator: " ").first.map(String.init)
        }
    }

    /// What is wrong with `sdp` as a WebRTC description: an empty list when it is well-formed (the session
    /// lines in order, every media section with a port, protocol and formats, an rtpmap per format, ICE
    /// credentials, a SHA-256 fingerprint, a setup role, a mid listed in the BUNDLE group, a direction).
    public static func problems(in sdp: String) -> [String] {
        var problems: [String] = []
        let all = lines(of: sdp)
        if !sdp.isEmpty && !sdp.hasSuffix("\r\n") { problems.append("lines must end with CRLF") }
        guard all.first == "v=0" else { return ["the first line must be v=0"] }
        let sessionEnd = all.firstIndex { $0.hasPrefix("m=") } ?? all.count
        let session = Array(all[..<sessionEnd])
        for (prefix, name) in [("o=", "origin"), ("s=", "session name"), ("t=", "timing")]
        where !session.contains(where: { $0.hasPrefix(prefix) }) {
            problems.append("missing \(name) line (\(prefix))")
        }
        if let o = session.first(where: { $0.hasPrefix("o=") }), o.split(separator: " ").count != 6 {
            problems.append("the o= line needs 6 fields")
        }
        for line in all where !(line.count >= 2 && line.dropFirst().first == "=" && line.first!.isLetter) {
            problems.append("not a type=value line: \(line)")
        }
        let bundle = session.first { $0.hasPrefix("a=group:BUNDLE ") }.map {
            Set($0.dropFirst("a=group:BUNDLE ".count).split(separator: " ").map(String.init))
        }
        if bundle == nil { problems.append("missing a=group:BUNDLE") }
        var sections: [[String]] = []
        for line in all[sessionEnd...] {
            if line.hasPrefix("m=") { sections.append([line]) } else { sections[sections.count - 1].append(line) }
        }
        if sections.isEmpty { problems.append("no media section") }
        for section in sections {
            let m = section[0].dropFirst(2).split(separator: " ").map(String.init)
            guard m.count >= 4, Int(m[1]) != nil else {
                problems.append("malformed \(section[0])")
                continue
            }
            let kind = m[0]
            for format in m[3...] where !section.contains(where: { $0.hasPrefix("a=rtpmap:\(format) ") }) {
                problems.append("\(kind): no rtpmap for format \(format)")
            }
            func value(_ attribute: String) -> String? {
                section.first { $0.hasPrefix("a=\(attribute):") }.map { String($0.dropFirst(attribute.count + 3)) }
            }
            if (value("ice-ufrag")?.count ?? 0) < 4 { problems.append("\(kind): ice-ufrag missing or shorter than 4") }
            if (value("ice-pwd")?.count ?? 0) < 22 { problems.append("\(kind): ice-pwd missing or shorter than 22") }
            if let fingerprint = value("fingerprint") {
                let parts = fingerprint.split(separator: " ")
                let bytes = parts.count == 2 ? parts[1].split(separator: ":") : []
                if parts.first != "sha-256" || bytes.count != 32
                    || !bytes.allSatisfy({ $0.count == 2 && UInt8($0, radix: 16) != nil })
                {
                    problems.append("\(kind): the fingerprint is not sha-256 with 32 hex bytes")
                }
            } else {
                problems.append("\(kind): no fingerprint")
            }
            if let setup = value("setup") {
                if !["actpass", "active", "passive"].contains(setup) { problems.append("\(kind): bad setup \(setup)") }
            } else {
                problems.append("\(kind): no setup")
            }
            if let mid = value("mid") {
                if let bundle, !bundle.contains(mid) {
                    problems.append("\(kind): mid \(mid) is not in the BUNDLE group")
                }
            } else {
                problems.append("\(kind): no mid")
            }
            if !section.contains(where: { ["a=sendrecv", "a=sendonly", "a=recvonly", "a=inactive"].contains($0) }) {
                problems.append("\(kind): no direction")
            }
        }
        return problems
    }

    // MARK: - Private

    private static func lines(of sdp: String) -> [String] {
        sdp.split(omittingEmptySubsequences: true, whereSeparator: { $0 == "\n" || $0 == "\r\n" || $0 == "\r" })
            .map(String.init)
    }

    private static func build(kinds: [String], setup: String, rng: inout some RandomNumberGenerator) -> String {
        let sessionId = UInt64.random(in: 1_000_000_000...UInt64(Int64.max), using: &rng)
        let ufrag = token(8, using: &rng)
        let pwd = token(24, using: &rng)
        let fingerprint = (0..<32).map { _ in hex(UInt8.random(in: 0...255, using: &rng)) }.joined(separator: ":")
        let mids = kinds.indices.map(String.init)
        var out = [
            "v=0",
            "o=- \(sessionId) 2 IN IP4 127.0.0.1",
            "s=-",
            "t=0 0",
            "a=group:BUNDLE \(mids.joined(separator: " "))",
            "a=msid-semantic: WMS switchboard-cli",
        ]
        for (index, kind) in kinds.enumerated() {
            let format = kind == "video" ? "96" : "111"
            out += [
                "m=\(kind) 9 UDP/TLS/RTP/SAVPF \(format)",
                "c=IN IP4 0.0.0.0",
                "a=rtcp:9 IN IP4 0.0.0.0",
                "a=ice-ufrag:\(ufrag)",
                "a=ice-pwd:\(pwd)",
                "a=ice-options:trickle",
                "a=fingerprint:sha-256 \(fingerprint)",
                "a=setup:\(setup)",
                "a=mid:\(mids[index])",
                "a=sendrecv",
                "a=rtcp-mux",
            ]
            if kind == "video" {
                out += [
                    "a=rtpmap:96 VP8/90000", "a=rtcp-fb:96 nack", "a=rtcp-fb:96 nack pli", "a=rtcp-fb:96 goog-remb",
                ]
            } else {
                out += ["a=rtpmap:111 opus/48000/2", "a=fmtp:111 minptime=10;useinbandfec=1"]
            }
        }
        return out.map { $0 + "\r\n" }.joined()
    }

    private static func token(_ length: Int, using rng: inout some RandomNumberGenerator) -> String {
        let alphabet = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/")
        return String((0..<length).map { _ in alphabet[Int.random(in: 0..<alphabet.count, using: &rng)] })
    }

    private static func hex(_ byte: UInt8) -> String {
        let digits = Array("0123456789ABCDEF")
        return String([digits[Int(byte >> 4)], digits[Int(byte & 0x0F)]])
    }
}
