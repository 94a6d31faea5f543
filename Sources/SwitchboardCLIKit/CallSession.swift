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

/// `call FRIEND [--video] [--offer FILE] [media options]`: invites, shows ringing and the outcome; with media
/// (GStreamer's webrtcbin, `CallMedia`) it sends a tone, a file or the microphone (and video), records what it
/// receives and prints the call's quality every second; without it (`--no-media`, `--offer`, or GStreamer missing)
/// it sends a generated SDP and candidates. `h` or `/hangup` (or Ctrl-C) hangs up or cancels; `/hold`, `/unhold`.
public struct CallSession: Sendable {
    public let context: CLIContext
    public let callee: String
    public let video: Bool
    public let offerFile: String?
    /// Generated ICE candidates sent after the accept (signalling only).
    public let candidates: Int
    /// What the call sends, records and reports; `enabled` false (or an offer file) means signalling only.
    public let media: MediaOptions

    public init(
        context: CLIContext, callee: String, video: Bool, offerFile: String?, candidates: Int = 2,
        media: MediaOptions = .signallingOnly
    ) {
        self.context = context
        self.callee = callee
        self.video = video
        self.offerFile = offerFile
        self.candidates = candidates
        self.media = media
    }

    /// Runs until the call ends; the exit code follows the end reason (`CallOutcome.exitCode`).
    public func run() async throws(CLIError) -> CLIExitCode {
        var offer: String
        if let offerFile {
            guard let data = FileManager.default.contents(atPath: offerFile) else {
                throw CLIError("cannot read the offer file \(offerFile)", exitCode: .localFile)
            }
            offer = String(decoding: data, as: UTF8.self)
            let problems = SDPGenerator.problems(in: offer)
            if !problems.isEmpty {
                context.printer.warning(
                    """
                    warning: \(offerFile) does not look like a WebRTC offer: \
                    \(problems.prefix(3).joined(separator: "; "))
                    """
                )
            }
        } else {
            var rng = SystemRandomNumberGenerator()
            offer = SDPGenerator.offer(video: video, using: &rng)
        }
        let sdp = offer
        return try await context.withSession(interactive: true) { session throws(CLIError) in
            try await call(session, offer: sdp)
        }
    }

    private func call(_ session: AuthenticatedSession, offer: String) async throws(CLIError) -> CLIExitCode {
        let client = session.client
        let printer = context.printer
        let store = context.store
        let inputs = SessionInputs(client: client)
        var names = NameBook(selfId: session.me.userId)
        let friend: UserSummary
        do {
            let friends = try await client.friends()
            for f in friends { names.learn(f) }
            let query = TargetQuery.classify(callee)
            if case .phone(let phone) = query {
                guard let match = try await client.matchContacts([phone]).first,
                    let f = friends.first(where: { $0.userId == match.userId })
                else {
                    throw CLIError("no friend has the phone number \(phone)", exitCode: .usage)
                }
                friend = f
            } else {
                friend = try TargetResolver.friend(query, in: friends)
            }
        } catch let error as CLIError {
            throw error
        } catch let error as SwitchboardClientError {
            throw context.fail(error, "looking up \(callee)", session.url)
        } catch {
            throw CLIError("looking up \(callee): \(error)", exitCode: .serverRefused)
        }

        let media = video ? "video" : "voice"
        var mediaCall: MediaCall?
        var offer = offer
        if self.media.enabled && offerFile == nil {
            mediaCall = try await MediaCall.start(
                options: self.media, video: video, turnCallId: nil, client: client, inputs: inputs, printer: printer)
            if let m = mediaCall {
                do {
                    offer = try await m.media.offer()
                } catch {
                    await m.media.close()
                    throw error
                }
            }
        }
        let invite: Ops.CallInvite.Result
        do {
            invite = try await client.send(
                Ops.CallInvite.self, .init(calleeId: friend.userId, media: media, offer: offer))
        } catch {
            await mediaCall?.media.close()
            throw context.fail(error, "calling \(friend.displayName)", session.url)
        }
        let callId = invite.call.callId
        mediaCall?.setCallId(callId)
        store.recordCurrentCall(callId)
        defer { store.recordCurrentCall(nil) }
        printer.emit(
            OutputRecord(
                "call.calling",
                [
                    "call_id": .string(callId), "callee_id": .int(friend.userId), "callee": .string(friend.displayName),
                    "media": .string(media), "disposition": .string(invite.disposition),
                ],
                text: "calling \(friend.displayName) (\(media) call \(callId))", style: .plain))
        switch invite.disposition {
        case "unavailable", "busy":
            await mediaCall?.media.close()
            let ended = CallEvents.Ended(callId: callId, reason: invite.disposition, durationMs: 0)
            printer.emit(EventFormatter.ended(ended))
            return .callNotAnswered
        case "joined":
            // Glare: the callee's call to us was accepted from this device; answer its offer.
            printer.emit(
                OutputRecord(
                    "call.joined", ["call_id": .string(callId)],
                    text: "\(friend.displayName) was calling you at the same time: joined that call", style: .success))
            if let old = mediaCall {
                // Our offer is not used: a new pipeline answers theirs.
                await old.media.close()
                mediaCall = try await MediaCall.start(
                    options: self.media, video: video || invite.call.media == "video", turnCallId: callId,
                    client: client,
                    inputs: inputs, printer: printer)
            }
            if var m = mediaCall, let theirs = invite.call.offer {
                m.learnRemote(theirs)
                let answer = try await m.media.answer(offer: theirs)
                sendSignals(client, inputs, callId: callId, answer: answer, generated: false)
                m.setCallId(callId)
                m.accepted()
                mediaCall = m
            } else {
                var rng = SystemRandomNumberGenerator()
                let answer = SDPGenerator.answer(to: invite.call.offer, using: &rng)
                sendSignals(client, inputs, callId: callId, answer: answer)
            }
        default:
            printer.hint("press h and Enter (or Ctrl-C) to hang up")
        }

        var answered = invite.disposition == "joined"
        var hangingUp = false
        var outcome = CLIExitCode.connection
        loop: for await input in inputs.stream {
            switch input {
            case .event(.other(let raw)) where raw.name.hasPrefix("call."):
                let record = EventFormatter.call(raw, names: names)
                switch raw.name {
                case "call.ended":
                    guard let e = try? raw.decode(CallEvents.Ended.self), e.callId == callId else { break }
                    printer.emit(EventFormatter.ended(e))
                    outcome = CallOutcome.exitCode(reason: e.reason)
                    break loop
                case "call.accepted":
                    guard let a = try? raw.decode(CallEvents.Accepted.self), a.callId == callId else { break }
                    answered = true
                    if let record { printer.emit(record) }
                    if var m = mediaCall {
                        if let answer = a.answer {
                            m.learnRemote(answer)
                            let media = m.media
                            Task {
                                if !(await media.setAnswer(answer)) {
                                    inputs.continuation.yield(.media(.error("the answer does not parse as SDP")))
                                }
                            }
                        }
                        m.accepted()
                        mediaCall = m
                    } else {
                        sendSignals(client, inputs, callId: callId, answer: nil)
                    }
                    continue
                case "call.signal":
                    if let signal = try? raw.decode(CallEvents.Signal.self), signal.callId == callId {
                        mediaCall?.handleSignal(signal)
                    }
                default:
                    break
                }
                if let record { printer.emit(record) }
            case .event, .eventsEnded:
                if let code = input.handleAsOther(names: names, printer: printer) {
                    outcome = code
                    break loop
                }
            case .line(let raw):
                let line = raw.trimmingCharacters(in: .whitespaces).lowercased()
                if line == "h" || line == "/hangup" || line == "/quit" {
                    if !hangingUp { hangingUp = true; hangUp(client, inputs, callId: callId, answered: answered) }
                } else if line == "/hold" || line == "/unhold", let m = mediaCall, answered {
                    m.hold(line == "/hold")
                    printer.emit(
                        OutputRecord(
                            "call.hold", ["call_id": .string(callId), "hold": .bool(line == "/hold")],
                            text: line == "/hold" ? "on hold (sending nothing)" : "off hold", style: .dim))
                } else if !line.isEmpty {
                    printer.hint(mediaCall == nil ? "press h and Enter to hang up" : "h hangs up; /hold, /unhold")
                }
            case .interrupt:
                if hangingUp {
                    outcome = .interrupted
                    break loop
                }
                hangingUp = true
                hangUp(client, inputs, callId: callId, answered: answered)
            case .endOfInput:
                continue
            case .record(let r):
                printer.emit(r)
            case .requestFinished(let tag, let ok):
                if tag == "hangup" && !ok {
                    outcome = .serverRefused
                    break loop
                }
            case .deadline(let tag):
                if tag == "hangup" {
                    printer.error("the server did not confirm the end of the call")
                    break loop
                } else if tag == MediaCall.statsTag {
                    mediaCall?.tick()
                } else if tag == MediaCall.hangupTag, !hangingUp {
                    hangingUp = true
                    hangUp(client, inputs, callId: callId, answered: answered)
                }
            case .media(let event):
                mediaCall?.handle(event)
            }
        }
        if var m = mediaCall {
            let received = await m.end()
            if outcome == .ok && answered && !received { outcome = .noMedia }
        }
        return outcome
    }

    /// After the accept: a couple of generated ICE candidates (unless `generated` is false: real media trickles
    /// its own) and, when joining, the answer.
    private func sendSignals(
        _ client: SwitchboardClient, _ inputs: SessionInputs, callId: String, answer: String?, generated: Bool = true
    ) {
        var rng = SystemRandomNumberGenerator()
        let candidates =
            generated
            ? SDPGenerator.iceCandidates(count: self.candidates, using: &rng).map { SDPGenerator.candidatePayload($0) }
            : []
        let continuation = inputs.continuation
        Task {
            var signals: [(String, String)] = []
            if let answer { signals.append(("answer", answer)) }
            signals += candidates.map { ("ice_candidate", $0) }
            for (kind, payload) in signals {
                do {
                    try await client.send(Ops.CallSignal.self, .init(callId: callId, kind: kind, payload: payload))
                    let shown: String =
                        kind == "ice_candidate" ? SDPGenerator.candidateLine(ofPayload: payload) ?? payload : "(SDP)"
                    let fields: [String: JSONValue] = [
                        "call_id": .string(callId), "kind": .string(kind), "payload": .string(payload),
                    ]
                    let record = OutputRecord(
                        "call.signal.sent", fields, text: "signal sent: \(kind) \(shown)", style: .dim)
                    continuation.yield(.record(record))
                } catch {
                    continuation.yield(
                        .record(
                            OutputRecord(
                                "call.signal.failed", ["kind": .string(kind), "error": .string("\(error)")],
                                text: "signal \(kind) not sent: \(error)", style: .warning)))
                }
            }
        }
    }

    private func hangUp(_ client: SwitchboardClient, _ inputs: SessionInputs, callId: String, answered: Bool) {
        context.printer.hint(answered ? "hanging up…" : "cancelling…")
        let continuation = inputs.continuation
        inputs.schedule("hangup", after: 5)
        Task {
            do throws(SwitchboardClientError) {
                try await client.send(Ops.CallHangup.self, .init(callId: callId))
                continuation.yield(.requestFinished(tag: "hangup", ok: true))
            } catch .server(let e) where e.code == "invalid_state" || e.code == "not_found" {
                // It ended meanwhile: its call.ended is on the way (or already shown).
                continuation.yield(.requestFinished(tag: "hangup", ok: true))
            } catch {
                continuation.yield(
                    .record(
                        OutputRecord(
                            "error", ["message": .string("\(error)")], text: "hangup failed: \(error)", style: .failure)
                    ))
                continuation.yield(.requestFinished(tag: "hangup", ok: false))
            }
        }
    }
}
