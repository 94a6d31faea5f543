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

/// The media side of one call, driven by the session task that owns it (a local variable of that task, so its
/// state needs no lock): it trickles local candidates through `call.signal` once the call id is known, applies
/// the other side's signals, reads the engine's figures once per interval, prints them, and sums them up when
/// the call ends. Requests run in tasks that report back through the session's inputs.
struct MediaCall {
    let media: CallMedia
    let options: MediaOptions
    let client: SwitchboardClient
    let inputs: SessionInputs
    let printer: Printer
    private(set) var callId: String?
    /// Candidate payloads made before the call id was known.
    private var pending: [String] = []
    private var quality: CallQuality?
    private var acceptedAt: ContinuousClock.Instant?
    private(set) var setupMs: Int64?
    private var connectedShown = false
    private var lastSnapshot: MediaSnapshot?
    private var tickScheduled = false
    private var ended = false
    /// The remote description's `a=mid` values in m-line order (for candidates that name only their mid).
    private var remoteMids: [String] = []

    static let statsTag = "media-stats"
    static let hangupTag = "media-hangup"

    /// Starts a call's media, or returns nil (after saying why) when GStreamer is not there: the call then goes on
    /// with signalling only. `turnCallId`: the call whose TURN credentials to ask for (nil: a call about to be placed).
    static func start(
        options: MediaOptions, video: Bool, turnCallId: String?, client: SwitchboardClient, inputs: SessionInputs,
        printer: Printer
    ) async throws(CLIError) -> MediaCall? {
        if let reason = CallMedia.unavailableReason() {
            printer.emit(
                OutputRecord(
                    "call.media.unavailable", ["reason": .string(reason)],
                    text: "no media for this call (signalling only): \(reason)", style: .warning))
            return nil
        }
        var stun: String?
        var turn: [String] = []
        do {
            let reply = try await client.send(Ops.CallTurn.self, .init(callId: turnCallId))
            (stun, turn) = MediaPipeline.iceServers(reply.iceServers.map { ($0.urls, $0.username, $0.credential) })
        } catch {
            if options.relayOnly {
                throw CLIError("--relay-only needs TURN credentials, and call.turn failed: \(error)", exitCode: .media)
            }
            printer.warning("no STUN/TURN servers for this call (call.turn failed: \(error)); trying direct paths only")
        }
        if options.relayOnly && turn.isEmpty {
            throw CLIError(
                "--relay-only needs a TURN server, and the hub hands out none (its --turn-uris and --turn-secret)",
                exitCode: .media)
        }
        let continuation = inputs.continuation
        let media = try CallMedia(options: options, video: video, stun: stun, turn: turn) { event in
            continuation.yield(.media(event))
        }
        return MediaCall(media: media, options: options, client: client, inputs: inputs, printer: printer)
    }

    private init(
        media: CallMedia, options: MediaOptions, client: SwitchboardClient, inputs: SessionInputs, printer: Printer
    ) {
        self.media = media
        self.options = options
        self.client = client
        self.inputs = inputs
        self.printer = printer
    }

    /// The call's id is known: candidates made so far go out now.
    mutating func setCallId(_ id: String) {
        callId = id
        let payloads = pending
        pending = []
        for p in payloads { send(kind: "ice_candidate", payload: p) }
    }

    /// Remembers the remote description's mids.
    mutating func learnRemote(_ sdp: String) {
        remoteMids = sdp.split(whereSeparator: { $0 == "\n" || $0 == "\r" }).compactMap { line in
            line.hasPrefix("a=mid:") ? String(line.dropFirst(6)) : nil
        }
    }

    /// The call was accepted: set-up time and the quality lines count from now.
    mutating func accepted() {
        guard acceptedAt == nil, let callId else { return }
        acceptedAt = .now
        quality = CallQuality(callId: callId)
        scheduleTick()
    }

    private var elapsedMs: Int64 {
        guard let acceptedAt else { return 0 }
        let d = ContinuousClock.now - acceptedAt
        return d.components.seconds * 1000 + d.components.attoseconds / 1_000_000_000_000_000
    }

    private mutating func scheduleTick() {
        guard !tickScheduled, !ended else { return }
        tickScheduled = true
        inputs.schedule(Self.statsTag, after: options.statsInterval)
    }

    /// The stats timer fired.
    mutating func tick() {
        tickScheduled = false
        requestSnapshot()
    }

    private func requestSnapshot() {
        guard !ended else { return }
        let media = self.media
        let elapsed = elapsedMs
        let continuation = inputs.continuation
        Task {
            let s = await media.snapshot(elapsedMs: elapsed)
            continuation.yield(.media(.stats(s)))
        }
    }

    /// Handles an engine event.
    mutating func handle(_ event: MediaEvent) {
        guard !ended else { return }
        switch event {
        case .localCandidate(let mline, let candidate):
            let payload = Self.candidatePayload(candidate, mline: mline)
            if callId == nil { pending.append(payload) } else { send(kind: "ice_candidate", payload: payload) }
        case .localDescription:
            break
        case .remoteMedia(let kind):
            let first = setupMs == nil
            if first, acceptedAt != nil { setupMs = elapsedMs }
            printer.emit(
                OutputRecord(
                    "call.media.track", ["call_id": callId.map { .string($0) } ?? .null, "kind": .string(kind)],
                    text: "receiving \(kind)", style: .dim))
            if first {
                requestSnapshot()
                if let after = options.hangupAfter { inputs.schedule(Self.hangupTag, after: after) }
            }
        case .iceState(let state):
            printer.emit(
                OutputRecord(
                    "call.media.ice", ["call_id": callId.map { .string($0) } ?? .null, "state": .string(state)],
                    text: "ICE \(state)", style: state == "failed" ? .failure : .dim))
        case .error(let message):
            printer.emit(
                OutputRecord(
                    "call.media.error", ["call_id": callId.map { .string($0) } ?? .null, "message": .string(message)],
                    text: "media error: \(message)", style: .failure))
        case .warning(let message):
            printer.emit(
                OutputRecord(
                    "call.media.warning", ["message": .string(message)], text: "media: \(message)", style: .dim))
        case .playbackEnded:
            printer.emit(
                OutputRecord(
                    "call.media.played", ["call_id": callId.map { .string($0) } ?? .null],
                    text: "finished playing the file", style: .dim))
        case .stats(let snapshot):
            guard let snapshot, var quality else { scheduleTick(); return }
            lastSnapshot = snapshot
            if !connectedShown, let setupMs,
                snapshot.packetsReceived > 0 || snapshot.remoteAudio || snapshot.remoteVideo
            {
                connectedShown = true
                let pair: JSONValue = snapshot.localCandidateType.map { .string($0) } ?? .null
                let via = snapshot.localCandidateType.map { " via \($0)" } ?? ""
                printer.emit(
                    OutputRecord(
                        "call.media.connected",
                        ["call_id": .string(quality.callId), "setup_ms": .int(setupMs), "pair": pair],
                        text: "media flowing\(via) (\(setupMs) ms after the answer)", style: .success))
            }
            let fields = quality.fields(snapshot)
            self.quality = quality
            printer.emit(OutputRecord("call.media.stats", fields, text: CallQuality.line(fields), style: .dim))
            scheduleTick()
        }
    }

    /// Applies a signal from the other side of the call.
    mutating func handleSignal(_ signal: CallEvents.Signal) {
        switch signal.kind {
        case "offer":
            // Renegotiation: answer it.
            learnRemote(signal.payload)
            let media = self.media
            let offer = signal.payload
            let call = self
            Task {
                do throws(CLIError) {
                    let answer = try await media.answer(offer: offer)
                    call.send(kind: "answer", payload: answer)
                } catch {
                    call.inputs.continuation.yield(
                        .media(.error("could not answer the renegotiation: \(error.message)")))
                }
            }
        case "answer":
            learnRemote(signal.payload)
            let media = self.media
            let sdp = signal.payload
            let continuation = inputs.continuation
            Task {
                if !(await media.setAnswer(sdp)) {
                    continuation.yield(.media(.error("the answer does not parse as SDP")))
                }
            }
        case "ice_candidate":
            guard let (candidate, mline) = Self.parseCandidate(signal.payload, mids: remoteMids) else { return }
            media.addCandidate(mline: mline, candidate: candidate)
        default:
            break
        }
    }

    /// Puts the call on hold (stops sending) or takes it off, and tells the other side.
    func hold(_ on: Bool) {
        media.setHold(on)
        send(kind: on ? "hold" : "unhold", payload: "")
    }

    /// The call ended: the last figures, the summary, complete recordings. Returns whether media arrived.
    mutating func end() async -> Bool {
        guard !ended else { return lastSnapshot.map { $0.packetsReceived > 0 } ?? false }
        ended = true
        let last = await media.snapshot(elapsedMs: elapsedMs) ?? lastSnapshot
        let recorded = await media.finish()
        await media.close()
        let received = (last?.packetsReceived ?? 0) > 0
        if let last, let callId, acceptedAt != nil {
            let fields = CallQuality.summary(last, callId: callId, setupMs: setupMs)
            printer.emit(
                OutputRecord(
                    "call.media.summary", fields,
                    text: received
                        ? CallQuality.line(fields, prefix: "call summary") : "call summary: no media was received",
                    style: received ? .plain : .failure))
        }
        if !recorded { printer.warning("a recording may be incomplete (it did not finish within 3 s)") }
        return received
    }

    private func send(kind: String, payload: String) {
        guard let callId else { return }
        let client = self.client
        let continuation = inputs.continuation
        Task {
            do {
                try await client.send(Ops.CallSignal.self, .init(callId: callId, kind: kind, payload: payload))
            } catch {
                continuation.yield(
                    .record(
                        OutputRecord(
                            "call.signal.failed", ["kind": .string(kind), "error": .string("\(error)")],
                            text: "signal \(kind) not sent: \(error)", style: .warning)))
            }
        }
    }

    /// The `ice_candidate` payload (an `RTCIceCandidateInit` in JSON) for a candidate line.
    static func candidatePayload(_ candidate: String, mline: Int) -> String {
        let object: [String: Any] = ["candidate": candidate, "sdpMLineIndex": mline, "sdpMid": NSNull()]
        let data = (try? JSONSerialization.data(withJSONObject: object, options: [.sortedKeys])) ?? Data()
        return String(decoding: data, as: UTF8.self)
    }

    /// The candidate line and m-line index of an `ice_candidate` payload; nil for end-of-candidates or nonsense.
    static func parseCandidate(_ payload: String, mids: [String]) -> (String, Int)? {
        guard let object = (try? JSONSerialization.jsonObject(with: Data(payload.utf8))) as? [String: Any],
            let candidate = object["candidate"] as? String, !candidate.isEmpty
        else { return nil }
        if let index = object["sdpMLineIndex"] as? Int { return (candidate, index) }
        if let mid = object["sdpMid"] as? String, let index = mids.firstIndex(of: mid) { return (candidate, index) }
        return (candidate, 0)
    }
}
