//===----------------------------------------------------------------------===//
//
// This source file is part of the Switchboard open source project
//
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//

import Foundation
import SwitchboardServer
import Testing

/// A mono 16-bit PCM WAV file: a 440 Hz tone whose loudness rises and falls, `seconds` long.
func toneWAV(seconds: Double, rate: Int = 16_000) -> [UInt8] {
    let count = Int(seconds * Double(rate))
    var pcm: [UInt8] = []
    pcm.reserveCapacity(count * 2)
    for i in 0..<count {
        let t = Double(i) / Double(rate)
        let envelope = 0.5 + 0.45 * sin(2 * Double.pi * t / max(seconds, 0.1))
        let v = Int16(max(-32767, min(32767, envelope * 20_000 * sin(2 * Double.pi * 440 * t))))
        pcm.append(UInt8(truncatingIfNeeded: v))
        pcm.append(UInt8(truncatingIfNeeded: v >> 8))
    }
    func le32(_ v: Int) -> [UInt8] {
        [UInt8(v & 0xFF), UInt8((v >> 8) & 0xFF), UInt8((v >> 16) & 0xFF), UInt8((v >> 24) & 0xFF)]
    }
    func le16(_ v: Int) -> [UInt8] { [UInt8(v & 0xFF), UInt8((v >> 8) & 0xFF)] }
    var out = Array("RIFF".utf8) + le32(36 + pcm.count) + Array("WAVE".utf8)
    out += Array("fmt ".utf8) + le32(16) + le16(1) + le16(1) + le32(rate) + le32(rate * 2) + le16(2) + le16(16)
    out += Array("data".utf8) + le32(pcm.count) + pcm
    return out
}

/// One HTTP request on a fresh connection.
func http(
    _ port: Int, _ method: String, _ path: String, token: String? = nil, headers: [String: String] = [:],
    body: [UInt8] = []
) throws -> (status: Int, head: String, body: [UInt8]) {
    let socket = try TestSocket(port: port, timeout: 30)
    var request = "\(method) \(path) HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n"
    if let token { request += "Authorization: Bearer \(token)\r\n" }
    for (name, value) in headers { request += "\(name): \(value)\r\n" }
    if method == "POST" { request += "Content-Length: \(body.count)\r\n" }
    request += "\r\n"
    try socket.send(Array(request.utf8) + body)
    if method == "HEAD" {
        let head = try socket.readHead()
        return (Int(head.split(separator: " ").dropFirst().first ?? "") ?? 0, head, [])
    }
    return try socket.readResponse()
}

func json(_ bytes: [UInt8]) -> [String: Any] {
    (try? JSONSerialization.jsonObject(with: Data(bytes)) as? [String: Any]) ?? [:]
}

func header(_ head: String, _ name: String) -> String? {
    for line in head.split(separator: "\r\n") {
        let parts = line.split(separator: ":", maxSplits: 1)
        if parts.count == 2, parts[0].lowercased() == name.lowercased() {
            return parts[1].trimmingCharacters(in: .whitespaces)
        }
    }
    return nil
}

@Suite("Voice messages over HTTP", .serialized)
struct VoiceHTTPTests {
    @Test func uploadSendDownloadWithAuthorizationRangesAndErrors() throws {
        let (server, port, database) = try startProtocolServer { $0.voice.maxUploadBytes = 2 * 1024 * 1024 }
        defer { stop(server); database.close() }
        let ann = try makeUser(port, "ann")
        let bob = try makeUser(port, "bob")
        let zed = try makeUser(port, "zed")
        try befriend(ann, bob)
        let wav = toneWAV(seconds: 3)

        // Authentication first.
        #expect(try http(port, "POST", "/voice", body: wav).status == 401)
        #expect(try http(port, "POST", "/voice", token: "not-a-token", body: wav).status == 401)
        // Clear refusals.
        let unsupported = try http(
            port, "POST", "/voice", token: ann.token, headers: ["Content-Type": "text/plain"], body: Array("hello".utf8)
        )
        #expect(unsupported.status == 415)
        #expect((json(unsupported.body)["error"] as? [String: Any])?["code"] as? String == "unsupported_media_type")
        var truncated = Array(wav.prefix(100))
        truncated[40] = 0xFF  // data chunk claims more than is there
        #expect(
            try http(port, "POST", "/voice", token: ann.token, headers: ["Content-Type": "audio/wav"], body: truncated)
                .status == 422)
        #expect(
            try http(
                port, "POST", "/voice", token: ann.token, headers: ["Content-Type": "audio/wav"],
                body: Array(repeating: 0, count: 3 * 1024 * 1024)
            ).status == 413)
        #expect(try http(port, "POST", "/voice", token: ann.token, body: []).status == 422)
        #expect(try http(port, "PUT", "/voice", token: ann.token).status == 405)

        // A real upload.
        let uploaded = try http(
            port, "POST", "/voice", token: ann.token, headers: ["Content-Type": "audio/wav"], body: wav)
        #expect(uploaded.status == 201)
        let clip = json(uploaded.body)
        let voiceId = try #require(clip["voice_id"] as? Int)
        #expect(abs((clip["duration_ms"] as? Int ?? 0) - 3000) <= 20)
        #expect((clip["waveform"] as? [Int])?.count == 100)
        #expect((clip["waveform"] as? [Int])?.allSatisfy { (0...31).contains($0) } == true)
        #expect(clip["mime_type"] as? String == "audio/ogg")
        let size = try #require(clip["size"] as? Int)
        // The same recording again: the same clip (deduplicated per uploader).
        #expect(
            json(
                try http(port, "POST", "/voice", token: ann.token, headers: ["Content-Type": "audio/wav"], body: wav)
                    .body)["voice_id"] as? Int == voiceId)

        // The uploader may fetch it; Bob not yet (no message references it); strangers never.
        let full = try http(port, "GET", "/voice/\(voiceId)", token: ann.token)
        #expect(full.status == 200)
        #expect(full.body.count == size)
        #expect(Array(full.body.prefix(4)) == Array("OggS".utf8))
        #expect(header(full.head, "Content-Type") == "audio/ogg")
        #expect(header(full.head, "Accept-Ranges") == "bytes")
        let etag = try #require(header(full.head, "ETag"))
        #expect(try http(port, "GET", "/voice/\(voiceId)", token: bob.token).status == 404)
        #expect(try http(port, "GET", "/voice/\(voiceId)", token: zed.token).status == 404)
        #expect(try http(port, "GET", "/voice/999999999", token: ann.token).status == 404)
        #expect(try http(port, "GET", "/voice/abc", token: ann.token).status == 404)
        #expect(try http(port, "GET", "/voice/\(voiceId)").status == 401)

        // Only the uploader can send it; the message carries duration and waveform inline.
        #expect(
            errorCode(try bob.client.call("messages.send", ["user_id": ann.id, "voice_id": voiceId])) == "not_found")
        #expect(
            errorCode(try ann.client.call("messages.send", ["user_id": bob.id, "voice_id": voiceId, "text": "both"]))
                == "bad_request")
        let ack = try #require(
            ok(try ann.client.call("messages.send", ["user_id": bob.id, "voice_id": voiceId, "client_id": "v1"])))
        let received = try #require(try bob.client.messages(count: 1).first)
        #expect(received["kind"] as? String == "voice")
        let voice = try #require(received["voice"] as? [String: Any])
        #expect(voice["voice_id"] as? Int == voiceId)
        #expect(voice["duration_ms"] as? Int == clip["duration_ms"] as? Int)
        #expect((voice["waveform"] as? [Int]) == (clip["waveform"] as? [Int]))
        #expect(received["seq"] as? Int == ack["seq"] as? Int)

        // Now Bob may fetch it, with ranges and conditional requests.
        let bobFull = try http(port, "GET", "/voice/\(voiceId)", token: bob.token)
        #expect(bobFull.status == 200)
        #expect(bobFull.body == full.body)
        let part = try http(port, "GET", "/voice/\(voiceId)", token: bob.token, headers: ["Range": "bytes=10-99"])
        #expect(part.status == 206)
        #expect(part.body == Array(full.body[10...99]))
        #expect(header(part.head, "Content-Range") == "bytes 10-99/\(size)")
        let open = try http(
            port, "GET", "/voice/\(voiceId)", token: bob.token, headers: ["Range": "bytes=\(size - 5)-"])
        #expect(open.body == Array(full.body.suffix(5)))
        let suffix = try http(port, "GET", "/voice/\(voiceId)", token: bob.token, headers: ["Range": "bytes=-7"])
        #expect(suffix.status == 206)
        #expect(suffix.body == Array(full.body.suffix(7)))
        let beyond = try http(port, "GET", "/voice/\(voiceId)", token: bob.token, headers: ["Range": "bytes=\(size)-"])
        #expect(beyond.status == 416)
        #expect(header(beyond.head, "Content-Range") == "bytes */\(size)")
        #expect(
            try http(port, "GET", "/voice/\(voiceId)", token: bob.token, headers: ["Range": "bytes=0-1,5-6"]).status
                == 200)
        #expect(
            try http(port, "GET", "/voice/\(voiceId)", token: bob.token, headers: ["If-None-Match": etag]).status == 304
        )
        let head = try http(port, "HEAD", "/voice/\(voiceId)", token: bob.token)
        #expect(head.status == 200)
        #expect(header(head.head, "Content-Length") == String(size))
        #expect(try http(port, "GET", "/voice/\(voiceId)", token: zed.token).status == 404)

        // Deleting the message for everyone takes Bob's access away again.
        let messageId = try #require(ack["message_id"] as? Int)
        _ = try #require(ok(try ann.client.call("messages.delete", ["message_id": messageId])))
        #expect(try http(port, "GET", "/voice/\(voiceId)", token: bob.token).status == 404)
        #expect(try http(port, "GET", "/voice/\(voiceId)", token: ann.token).status == 200)
    }

    @Test func keepAliveServesSeveralRequestsAndUploadsAreBoundedWhenSaturated() throws {
        let (server, port, database) = try startProtocolServer {
            $0.voice.maxConcurrentUploads = 1
        }
        defer { stop(server); database.close() }
        let ann = try makeUser(port, "ann")
        let wav = toneWAV(seconds: 1)
        // Two requests on one kept-alive connection.
        let socket = try TestSocket(port: port, timeout: 30)
        for _ in 0..<2 {
            try socket.send(
                Array(
                    ("POST /voice HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer \(ann.token)\r\n"
                        + "Content-Type: audio/wav\r\nContent-Length: \(wav.count)\r\n\r\n").utf8) + wav)
            #expect(try socket.readResponse().status == 201)
        }
        // A slow upload holds the only slot: another upload gets 503 with Retry-After.
        let slow = try TestSocket(port: port, timeout: 30)
        try slow.send(
            Array(
                ("POST /voice HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer \(ann.token)\r\n"
                    + "Content-Length: \(wav.count)\r\n\r\n").utf8) + Array(wav.prefix(10)))
        #expect(waitUntil { server.voiceUploadsInProgress == 1 })
        let busy = try http(port, "POST", "/voice", token: ann.token, headers: ["Content-Type": "audio/wav"], body: wav)
        #expect(busy.status == 503)
        #expect(header(busy.head, "Retry-After") != nil)
        try slow.send(Array(wav.dropFirst(10)))
        let slowResponse = try slow.readResponse()
        #expect(
            slowResponse.status == 201, "\(slowResponse.head) \(String(decoding: slowResponse.body, as: UTF8.self))")
    }
}
