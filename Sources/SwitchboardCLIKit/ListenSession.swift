//===----------------------------------------------------------------------===//
//
// This source file is part of the Switchboard open source project
//
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//

import Foundation
public import SwitchboardClient
import SwitchboardProtocol

/// `listen`: shows every event; an incoming call asks to answer (`a`) or decline (`d`) (or does so by itself
/// with `--auto-answer` / `--auto-decline`); `h` hangs up; `/quit` or Ctrl-C ends (hanging up first).
public struct ListenSession: Sendable {
    /// What to do with incoming calls.
    public enum Policy: Sendable {
        case ask
        case autoAnswer
        case autoDecline
    }

    public let context: CLIContext
    public let policy: Policy
    public let presence: Availability?
    /// Generated ICE candidates sent after answering (signalling only).
    public let candidates: Int
    /// What answered calls send, record and report; `enabled` false means signalling only.
    public let media: MediaOptions
    /// End after the first answered call ends, with that call's exit code (`--once`).
    public let once: Bool

    public init(
        context: CLIContext, policy: Policy, presence: Availability? = nil, candidates: Int = 2,
        media: MediaOptions = .signallingOnly, once: Bool = false
    ) {
        self.context = context
        self.policy = policy
        self.presence = presence
        self.candidates = candidates
        self.media = media
        self.once = once
    }

    private struct CurrentCall {
        var ring: CallEvents.Ring
        var active: Bool
        var busy: Bool
    }

    public func run() async throws(CLIError) -> CLIExitCode {
        try await context.withSession(interactive: true) { session throws(CLIError) in try await listen(session) }
    }

    private func listen(_ session: AuthenticatedSession) async throws(CLIError) -> CLIExitCode {
        let client = session.client
        let printer = context.printer
        let store = context.store
        let inputs = SessionInputs(client: client)
        var names = NameBook(selfId: session.me.userId)
        do {
            for f in try await client.friends() { names.learn(f) }
            if let presence { try await client.setPresence(presence) }
        } catch {
            throw context.fail(error, "starting to listen", session.url)
        }
        printer.emit(
            OutputRecord(
                "listening",
                ["user_id": .int(session.me.userId), "display_name": .string(session.me.profile.displayName)],
                text:
                    """
                    listening as \(session.me.profile.displayName) (user \(session.me.userId)); /quit or Ctrl-C to stop
                    """,
                style: .success))
        var current: CurrentCall?
        var quitting = false
        var mediaCall: MediaCall?
        defer { store.recordCurrentCall(nil) }

        /// Ends the current call's media; returns the call's exit code (`noMedia` when media was on and none came).
        func endMedia() async -> CLIExitCode {
            guard var m = mediaCall else { return .ok }
            mediaCall = nil
            let answered = m.callId != nil
            let received = await m.end()
            return answered && !received ? .noMedia : .ok
        }

        /// Answers `ring`: with media, the engine's answer (candidates trickle once the accept succeeded).
        func answerCall(_ ring: CallEvents.Ring) async {
            guard self.media.enabled, let offer = ring.offer else {
                answer(client, inputs, ring)
                return
            }
            do throws(CLIError) {
                let video = ring.media == "video" || offer.contains("m=video")
                guard
                    var m = try await MediaCall.start(
                        options: self.media, video: video, turnCallId: ring.callId, client: client, inputs: inputs,
                        printer: printer)
                else {
                    answer(client, inputs, ring)
                    return
                }
                m.learnRemote(offer)
                let sdp: String
                do {
                    sdp = try await m.media.answer(offer: offer)
                } catch {
                    await m.media.close()
                    throw error
                }
                mediaCall = m
                answer(client, inputs, ring, answerSDP: sdp)
            } catch {
                printer.emit(
                    OutputRecord(
                        "call.answer_failed", ["call_id": .string(ring.callId), "error": .string(error.message)],
                        text: "could not answer with media: \(error.message)", style: .failure))
                decline(client, inputs, ring.callId)
            }
        }

        for await input in inputs.stream {
            switch input {
            case .event(.other(let raw)) where raw.name == "call.ring":
                guard let ring = try? raw.decode(CallEvents.Ring.self) else { continue }
                names.names[ring.caller.userId] = ring.caller.displayName
                if let record = EventFormatter.call(raw, names: names) { printer.emit(record) }
                if current != nil {
                    printer.hint(
                        """
                        already in a call; the new one keeps ringing until it times out (d to decline is for the \
                        current one)
                        """
                    )
                    continue
                }
                current = CurrentCall(ring: ring, active: false, busy: false)
                store.recordCurrentCall(ring.callId)
                switch policy {
                case .ask:
                    printer.emit(
                        OutputRecord(
                            "prompt", ["call_id": .string(ring.callId)],
                            text: "answer with a, decline with d (then Enter)", style: .warning))
                case .autoAnswer:
                    current?.busy = true
                    await answerCall(ring)
                case .autoDecline:
                    current?.busy = true
                    decline(client, inputs, ring.callId)
                }
            case .event(.other(let raw)) where raw.name.hasPrefix("call."):
                if let record = EventFormatter.call(raw, names: names) { printer.emit(record) }
                if raw.name == CallEvents.Signal.name, let signal = try? raw.decode(CallEvents.Signal.self),
                    signal.callId == current?.ring.callId
                {
                    mediaCall?.handleSignal(signal)
                }
                if let ended = Self.endedCallId(raw), ended == current?.ring.callId {
                    let wasActive = current?.active ?? false
                    current = nil
                    store.recordCurrentCall(nil)
                    let code = await endMedia()
                    if quitting { return .ok }
                    if once && wasActive { return code }
                }
            case .event, .eventsEnded:
                if let code = input.handleAsOther(names: names, printer: printer) { return code }
            case .line(let raw):
                let line = raw.trimmingCharacters(in: .whitespaces).lowercased()
                switch line {
                case "":
                    continue
                case "/quit", "/exit":
                    guard let call = current else { return .ok }
                    quitting = true
                    end(client, inputs, call)
                    inputs.schedule("quit", after: 5)
                case "a", "/answer":
                    guard var call = current, !call.active, !call.busy else {
                        printer.hint(current == nil ? "no call is ringing" : "already answering or in the call")
                        continue
                    }
                    call.busy = true
                    current = call
                    await answerCall(call.ring)
                case "d", "/decline":
                    guard var call = current, !call.active, !call.busy else {
                        printer.hint(current == nil ? "no call is ringing" : "in the call: h hangs up")
                        continue
                    }
                    call.busy = true
                    current = call
                    decline(client, inputs, call.ring.callId)
                case "h", "/hangup":
                    guard let call = current else {
                        printer.hint("no call in progress")
                        continue
                    }
                    end(client, inputs, call)
                case "/hold", "/unhold":
                    guard let call = current, call.active, let m = mediaCall else {
                        printer.hint("hold needs a call in progress with media")
                        continue
                    }
                    m.hold(line == "/hold")
                    printer.emit(
                        OutputRecord(
                            "call.hold", ["call_id": .string(call.ring.callId), "hold": .bool(line == "/hold")],
                            text: line == "/hold" ? "on hold (sending nothing)" : "off hold", style: .dim))
                default:
                    printer.hint(
                        current == nil ? "waiting for calls; /quit to stop" : "a: answer, d: decline, h: hang up")
                }
            case .interrupt:
                if quitting { return .interrupted }
                guard let call = current else { return .ok }
                quitting = true
                end(client, inputs, call)
                inputs.schedule("quit", after: 5)
            case .endOfInput:
                // Scripts may close stdin (--auto-answer < /dev/null): keep listening until Ctrl-C.
                continue
            case .record(let r):
                printer.emit(r)
            case .requestFinished(let tag, let ok):
                if tag.hasPrefix("accept:") {
                    let id = String(tag.dropFirst("accept:".count))
                    if ok, current?.ring.callId == id {
                        current?.active = true
                        current?.busy = false
                        mediaCall?.setCallId(id)
                        mediaCall?.accepted()
                    } else if !ok, current?.ring.callId == id {
                        current = nil
                        store.recordCurrentCall(nil)
                        _ = await endMedia()
                    }
                }
            case .deadline(let tag):
                if tag == "quit" && quitting { return .ok }
                if tag == MediaCall.statsTag {
                    mediaCall?.tick()
                } else if tag == MediaCall.hangupTag, let call = current, call.active {
                    end(client, inputs, call)
                }
            case .media(let event):
                mediaCall?.handle(event)
            }
        }
        return .ok
    }

    /// Accepts `ring` with `answerSDP` (real media, whose candidates trickle by themselves), else with a generated
    /// answer and generated candidates.
    /// The call a `call.ended` or `call.answered_elsewhere` event ends on this device, or nil for another event.
    private static func endedCallId(_ raw: RawEvent) -> String? {
        switch raw.name {
        case CallEvents.Ended.name: (try? raw.decode(CallEvents.Ended.self))?.callId
        case CallEvents.AnsweredElsewhere.name: (try? raw.decode(CallEvents.AnsweredElsewhere.self))?.callId
        default: nil
        }
    }

    private func answer(
        _ client: SwitchboardClient, _ inputs: SessionInputs, _ ring: CallEvents.Ring, answerSDP real: String? = nil
    ) {
        var rng = SystemRandomNumberGenerator()
        let answerSDP = real ?? SDPGenerator.answer(to: ring.offer, using: &rng)
        let candidates =
            real != nil
            ? []
            : SDPGenerator.iceCandidates(count: self.candidates, using: &rng).map { SDPGenerator.candidatePayload($0) }
        let continuation = inputs.continuation
        let callId = ring.callId
        let caller = ring.caller.displayName
        Task {
            do {
                try await client.send(Ops.CallAccept.self, .init(callId: callId, answer: answerSDP))
                continuation.yield(.requestFinished(tag: "accept:\(callId)", ok: true))
                continuation.yield(
                    .record(
                        OutputRecord(
                            "call.answered", ["call_id": .string(callId), "caller": .string(caller)],
                            text: "answered: connected with \(caller) (h and Enter hangs up)", style: .success)))
            } catch {
                continuation.yield(.requestFinished(tag: "accept:\(callId)", ok: false))
                continuation.yield(
                    .record(
                        OutputRecord(
                            "call.answer_failed", ["call_id": .string(callId), "error": .string("\(error)")],
                            text: "could not answer: \(error)", style: .failure)))
                return
            }
            for candidate in candidates {
                do {
                    try await client.send(
                        Ops.CallSignal.self, .init(callId: callId, kind: "ice_candidate", payload: candidate))
                    continuation.yield(
                        .record(
                            OutputRecord(
                                "call.signal.sent",
                                ["call_id": .string(callId), "kind": "ice_candidate", "payload": .string(candidate)],
                                text:
                                    """
                                    signal sent: ice_candidate \
                                    \(SDPGenerator.candidateLine(ofPayload: candidate) ?? candidate)
                                    """,
                                style: .dim)))
                } catch {
                    continuation.yield(
                        .record(
                            OutputRecord(
                                "call.signal.failed", ["error": .string("\(error)")], text: "signal not sent: \(error)",
                                style: .warning)))
                }
            }
        }
    }

    private func decline(_ client: SwitchboardClient, _ inputs: SessionInputs, _ callId: String) {
        let continuation = inputs.continuation
        Task {
            do {
                try await client.send(Ops.CallDecline.self, .init(callId: callId))
                continuation.yield(
                    .record(OutputRecord("call.declined", ["call_id": .string(callId)], text: "declined", style: .dim)))
            } catch {
                continuation.yield(
                    .record(
                        OutputRecord(
                            "error", ["error": .string("\(error)")], text: "could not decline: \(error)",
                            style: .failure)))
            }
        }
    }

    /// Hangs up an active call, declines a ringing one.
    private func end(_ client: SwitchboardClient, _ inputs: SessionInputs, _ call: CurrentCall) {
        context.printer.hint(call.active ? "hanging up…" : "declining…")
        let continuation = inputs.continuation
        let callId = call.ring.callId
        Task {
            do {
                try await client.send(Ops.CallHangup.self, .init(callId: callId))
            } catch {
                continuation.yield(
                    .record(
                        OutputRecord(
                            "error", ["error": .string("\(error)")], text: "hangup failed: \(error)", style: .failure)))
            }
        }
    }
}
