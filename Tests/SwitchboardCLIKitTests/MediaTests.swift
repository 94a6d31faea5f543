//===----------------------------------------------------------------------===//
//
// This source file is part of the Switchboard open source project
//
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//

import Foundation
import SwitchboardClient
import Testing

@testable import SwitchboardCLIKit

@Suite struct MediaPipelineTests {
    @Test func pathsAreQuotedForGstLaunch() {
        #expect(MediaPipeline.quoted("/tmp/a b.wav") == "\"/tmp/a b.wav\"")
        #expect(MediaPipeline.quoted("x\"y\\z") == "\"x\\\"y\\\\z\"")
    }

    @Test func theSendingPipelineFollowsTheAudioSourceAndVideo() {
        let tone = MediaPipeline.send(MediaOptions(audio: .tone(1000)), video: false)
        #expect(tone.contains("audiotestsrc is-live=true wave=sine freq=1000"))
        #expect(tone.contains("webrtcbin name=sbwebrtc"))
        #expect(tone.contains("valve name=sbvalve "))
        #expect(!tone.contains("vp8enc"))
        let file = MediaPipeline.send(MediaOptions(audio: .file("/x.wav", loop: true)), video: true)
        #expect(file.contains("appsrc name=sbpcm"))
        #expect(file.contains("videotestsrc is-live=true"))
        #expect(file.contains("vp8enc"))
        #expect(file.contains("valve name=sbvalve1"))
        let videoFile = MediaPipeline.send(MediaOptions(audio: .microphone, videoFile: "/v.webm"), video: true)
        #expect(videoFile.contains("autoaudiosrc"))
        #expect(videoFile.contains("filesrc location=\"/v.webm\" ! decodebin"))
        #expect(videoFile.contains("clocksync"))
    }

    @Test func recordingsFollowTheFileName() {
        #expect(MediaPipeline.receiveAudio(record: nil).contains("level"))
        #expect(!MediaPipeline.receiveAudio(record: nil).contains("filesink"))
        let wav = MediaPipeline.receiveAudio(record: "/r/x.WAV")
        #expect(wav.contains("wavenc ! filesink name=sbrec"))
        let ogg = MediaPipeline.receiveAudio(record: "/r/x.ogg")
        #expect(ogg.contains("opusparse ! oggmux ! filesink name=sbrec"))
        #expect(MediaPipeline.receiveVideo(record: nil).contains("fakesink name=sbframes signal-handoffs=true"))
        #expect(MediaPipeline.receiveVideo(record: "/v.webm").contains("webmmux ! filesink name=sbrec1"))
    }

    @Test func iceServersBecomeWebrtcbinURIsWithEscapedCredentials() {
        let (stun, turn) = MediaPipeline.iceServers([
            (urls: ["stun:turn.example.org:3478"], username: nil, credential: nil),
            (
                urls: [
                    "turn:turn.example.org:3478?transport=udp", "turn:10.0.0.1?transport=tcp",
                    "turns:t.example.org:5349",
                ],
                username: "1795000000:1", credential: "q1X/b+=="
            ),
        ])
        #expect(stun == "stun://turn.example.org:3478")
        #expect(
            turn == [
                "turn://1795000000%3A1:q1X%2Fb%2B%3D%3D@turn.example.org:3478",
                "turn://1795000000%3A1:q1X%2Fb%2B%3D%3D@10.0.0.1:3478?transport=tcp",
                "turns://1795000000%3A1:q1X%2Fb%2B%3D%3D@t.example.org:5349",
            ])
        // TURN without credentials is skipped.
        #expect(MediaPipeline.iceServers([(urls: ["turn:x:3478"], username: nil, credential: nil)]).turn.isEmpty)
    }
}

@Suite struct CallQualityTests {
    @Test func lossIsCountedOverTheWholeCall() {
        #expect(CallQuality.lossPercent(received: 0, lost: 0) == nil)
        #expect(CallQuality.lossPercent(received: 95, lost: 5) == 5)
        #expect(CallQuality.lossPercent(received: 10, lost: -3) == 0)
    }

    @Test func mosFallsWithLossDelayAndJitter() throws {
        #expect(CallQuality.mos(rttMs: nil, jitterMs: 1, lossPercent: 0) == nil)
        let clean = try #require(CallQuality.mos(rttMs: 1, jitterMs: 1, lossPercent: 0))
        let lossy = try #require(CallQuality.mos(rttMs: 1, jitterMs: 1, lossPercent: 5))
        let slow = try #require(CallQuality.mos(rttMs: 600, jitterMs: 1, lossPercent: 0))
        let jittery = try #require(CallQuality.mos(rttMs: 1, jitterMs: 80, lossPercent: 0))
        #expect(clean > 4.3 && clean <= 4.5)
        #expect(lossy < clean && lossy > 3)
        #expect(slow < clean)
        #expect(jittery < clean)
        #expect(CallQuality.mos(rttMs: 5000, jitterMs: 500, lossPercent: 60) == 1)
    }

    @Test func ratesComeFromTheIntervalAndTheSummaryFromTheWholeCall() {
        var q = CallQuality(callId: "c")
        let first = q.fields(MediaSnapshot(elapsedMs: 1000, bytesReceived: 4000, bytesSent: 8000))
        #expect(first["in_kbps"] == .null)
        let second = q.fields(
            MediaSnapshot(
                elapsedMs: 3000, localCandidateType: "relay", rttSeconds: 0.052, jitterSeconds: 0.004,
                packetsReceived: 95,
                packetsLost: 5, bytesReceived: 14000, bytesSent: 8000))
        #expect(second["in_kbps"] == .double(40))
        #expect(second["out_kbps"] == .double(0))
        #expect(second["pair"] == .string("relay"))
        #expect(second["rtt_ms"] == .double(52))
        #expect(second["jitter_ms"] == .double(4))
        #expect(second["loss_pct"] == .double(5))
        #expect(second["call_id"] == .string("c"))
        let summary = CallQuality.summary(
            MediaSnapshot(elapsedMs: 4000, packetsReceived: 10, bytesReceived: 16000, bytesSent: 20000), callId: "c",
            setupMs: 250)
        #expect(summary["in_kbps"] == .double(32))
        #expect(summary["out_kbps"] == .double(40))
        #expect(summary["media_received"] == .bool(true))
        #expect(summary["setup_ms"] == .int(250))
        #expect(
            CallQuality.summary(MediaSnapshot(elapsedMs: 10), callId: "c", setupMs: nil)["media_received"]
                == .bool(false))
        #expect(CallQuality.line(second).contains("via relay"))
    }
}

@Suite struct CandidatePayloadTests {
    @Test func candidatesTravelAsRTCIceCandidateInit() throws {
        let payload = MediaCall.candidatePayload("candidate:1 1 UDP 2015363327 192.0.2.2 58646 typ host", mline: 1)
        let object = try #require(try JSONSerialization.jsonObject(with: Data(payload.utf8)) as? [String: Any])
        #expect(object["candidate"] as? String == "candidate:1 1 UDP 2015363327 192.0.2.2 58646 typ host")
        #expect(object["sdpMLineIndex"] as? Int == 1)
        #expect(object["sdpMid"] is NSNull)
        let parsed = try #require(MediaCall.parseCandidate(payload, mids: []))
        #expect(parsed.0.hasPrefix("candidate:1 ") && parsed.1 == 1)
    }

    @Test func aBrowsersCandidateMayNameOnlyItsMid() throws {
        let parsed = try #require(
            MediaCall.parseCandidate(
                #"{"candidate":"candidate:9 1 udp 1 ::1 9 typ host","sdpMid":"v1"}"#, mids: ["a0", "v1"]))
        #expect(parsed.1 == 1)
        #expect(MediaCall.parseCandidate(#"{"candidate":""}"#, mids: []) == nil)
        #expect(MediaCall.parseCandidate("not json", mids: []) == nil)
    }
}

/// Two engines in one process calling each other over loopback (needs GStreamer with webrtcbin and libnice, which
/// `scripts/deps.sh --test` installs; without them `CallMedia.unavailableReason()` says what is missing and the
/// test fails with that reason).
@Suite(.serialized) struct CallMediaEngineTests {
    final class Collector: @unchecked Sendable {
        let lock = NSLock()
        var events: [MediaEvent] = []
        func add(_ e: MediaEvent) {
            lock.lock()
            events.append(e)
            lock.unlock()
        }
        func candidates() -> [(Int, String)] {
            lock.lock()
            defer { lock.unlock() }
            return events.compactMap {
                if case .localCandidate(let m, let c) = $0 { return (m, c) } else { return nil }
            }
        }
        func has(_ e: MediaEvent) -> Bool {
            lock.lock()
            defer { lock.unlock() }
            return events.contains(e)
        }
    }

    @Test func twoEnginesExchangeAToneAndRecordIt() async throws {
        let reason = CallMedia.unavailableReason()
        #expect(reason == nil, "GStreamer: \(reason ?? "")")
        guard reason == nil else { return }
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("sb-media-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let recording = folder.appendingPathComponent("b.wav").path
        let a = Collector()
        let b = Collector()
        // Loopback only: the test does not depend on the machine's interfaces (libnice skips loopback unless told).
        let caller = try CallMedia(
            options: MediaOptions(audio: .tone(440), iceAddresses: ["127.0.0.1"]), video: false, stun: nil, turn: []
        ) { a.add($0) }
        let callee = try CallMedia(
            options: MediaOptions(audio: .tone(1000), record: recording, iceAddresses: ["127.0.0.1"]), video: false,
            stun: nil, turn: []
        ) { b.add($0) }
        let offer = try await caller.offer()
        #expect(offer.contains("m=audio") && offer.lowercased().contains("opus/48000"))
        let answer = try await callee.answer(offer: offer)
        #expect(await caller.setAnswer(answer))
        // Trickle: whatever each side gathered so far, then anything later.
        var sentA = 0
        var sentB = 0
        var received: MediaSnapshot?
        let deadline = ContinuousClock.now + .seconds(20)
        while ContinuousClock.now < deadline {
            let ca = a.candidates()
            for (m, c) in ca[sentA...] { callee.addCandidate(mline: m, candidate: c) }
            sentA = ca.count
            let cb = b.candidates()
            for (m, c) in cb[sentB...] { caller.addCandidate(mline: m, candidate: c) }
            sentB = cb.count
            if let s = await callee.snapshot(elapsedMs: 0), s.packetsReceived >= 100, s.audioLevelDb != nil {
                received = s
                break
            }
            try await Task.sleep(for: .milliseconds(100))
        }
        let s = try #require(received, "the callee received no audio within 20 s")
        #expect(s.localCandidateType == "host")
        #expect(a.candidates().allSatisfy { $0.1.contains(" 127.0.0.1 ") }, "\(a.candidates())")
        #expect(s.iceState == "connected" || s.iceState == "completed")
        #expect(b.has(.remoteMedia("audio")))
        let sc = try #require(await caller.snapshot(elapsedMs: 0))
        #expect(sc.bytesSent > 0)
        // A renegotiation (what `call` and `listen` do with an `offer` signal mid-call): media goes on.
        let offer2 = try await caller.offer()
        let answer2 = try await callee.answer(offer: offer2)
        #expect(await caller.setAnswer(answer2))
        var after: UInt64 = 0
        let deadline2 = ContinuousClock.now + .seconds(10)
        while ContinuousClock.now < deadline2 {
            after = await callee.snapshot(elapsedMs: 0)?.packetsReceived ?? 0
            if after >= s.packetsReceived + 50 { break }
            try await Task.sleep(for: .milliseconds(100))
        }
        #expect(
            after >= s.packetsReceived + 50, "packets after the renegotiation: \(after), before: \(s.packetsReceived)")
        #expect(await callee.finish())
        await caller.close()
        await callee.close()
        // A complete WAV: a RIFF header whose data size matches the file (wavenc writes it at the end).
        let data = try Data(contentsOf: URL(fileURLWithPath: recording))
        #expect(data.count > 44 + 48000 * 2)
        #expect(data.prefix(4) == Data("RIFF".utf8))
        let riffSize = data.withUnsafeBytes { $0.loadUnaligned(fromByteOffset: 4, as: UInt32.self) }
        #expect(Int(UInt32(littleEndian: riffSize)) == data.count - 8)
    }

    @Test func aFileThatIsNotAudioOrABadAddressIsRefusedBeforeTheCall() async throws {
        guard CallMedia.unavailableReason() == nil else { return }
        let path = FileManager.default.temporaryDirectory.appendingPathComponent(
            "sb-not-audio-\(UUID().uuidString).wav"
        ).path
        try Data("this is not audio".utf8).write(to: URL(fileURLWithPath: path))
        defer { try? FileManager.default.removeItem(atPath: path) }
        #expect(throws: CLIError.self) {
            _ = try CallMedia(options: MediaOptions(audio: .file(path, loop: false)), video: false, stun: nil, turn: [])
            { _ in }
        }
        #expect(throws: CLIError.self) {
            _ = try CallMedia(
                options: MediaOptions(audio: .file("/nonexistent/x.wav", loop: false)), video: false, stun: nil,
                turn: []
            ) { _ in }
        }
        #expect(throws: CLIError.self) {
            _ = try CallMedia(options: MediaOptions(iceAddresses: ["not-an-ip"]), video: false, stun: nil, turn: []) {
                _ in
            }
        }
    }
}
