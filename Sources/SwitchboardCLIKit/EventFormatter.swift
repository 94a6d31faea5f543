//===----------------------------------------------------------------------===//
//
// This source file is part of the Switchboard open source project
//
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//

public import SwitchboardClient
public import SwitchboardProtocol

/// Turns messages, events and call events into output records (pure; unit-tested).
public enum EventFormatter {
    /// A message: `[12:01] Bob: hi` (voice: duration and a waveform sketch).
    public static func message(_ m: Message, names: NameBook, conversationName: String? = nil, history: Bool = false)
        -> OutputRecord
    {
        var fields: [String: JSONValue] = [
            "conversation_id": .int(m.conversationId), "seq": .int(m.seq), "message_id": .int(m.id),
            "kind": .string(m.kind.rawValue), "ts": .string(m.ts),
        ]
        fields["sender_id"] = m.senderId.map { .int($0) } ?? .null
        fields["sender"] = .string(names.name(m.senderId))
        if history { fields["history"] = .bool(true) }
        let time = m.ts.count >= 16 ? String(m.ts.dropFirst(11).prefix(5)) : m.ts
        let place = conversationName.map { "(\($0)) " } ?? ""
        var body: String
        if m.deleted == true {
            body = "(deleted)"
            fields["deleted"] = .bool(true)
        } else {
            switch m.kind {
            case .text:
                body = m.text ?? ""
                fields["text"] = .string(body)
            case .voice:
                if let v = m.voice {
                    body = "voice message \(seconds(v.durationMs)) \(sketch(v.waveform)) (voice \(v.voiceId))"
                    fields["voice_id"] = .int(v.voiceId)
                    fields["duration_ms"] = .int(v.durationMs)
                } else {
                    body = "voice message"
                }
            case .system:
                body = systemText(m.system, names: names)
                if let s = m.system { fields["event"] = .string(s.event) }
            }
        }
        let who = m.kind == .system ? "*" : names.name(m.senderId) + ":"
        let style: OutputStyle = history ? .dim : (m.senderId == names.selfId ? .plain : .incoming)
        return OutputRecord("message", fields, text: "[\(time)] \(place)\(who) \(body)", style: style)
    }

    /// The record for any event of the stream, or nil for events not worth a line (connection states other
    /// than problems).
    public static func event(_ event: ClientEvent, names: NameBook) -> OutputRecord? {
        switch event {
        case .message(let m):
            return message(m, names: names)
        case .presence(let p):
            return presence(p, names: names)
        case .presenceSnapshot(let list):
            let text =
                list.isEmpty
                ? "no friends online" : list.map { "\(names.name($0.userId)) \($0.status)" }.joined(separator: ", ")
            return OutputRecord(
                "presence.snapshot",
                ["presence": .array(list.map { .object(["user_id": .int($0.userId), "status": .string($0.status)]) })],
                text: "presence: \(text)", style: .dim)
        case .typing(let t):
            let verb = t.activity == "recording" ? "recording a voice message" : "typing"
            return OutputRecord(
                "typing",
                [
                    "conversation_id": .int(t.conversationId), "user_id": .int(t.userId),
                    "name": .string(names.name(t.userId)),
                    "activity": .string(t.activity), "active": .bool(t.active),
                ],
                text: t.active ? "\(names.name(t.userId)) is \(verb)…" : "\(names.name(t.userId)) stopped \(verb)",
                style: .dim)
        case .conversationRead(let r):
            return OutputRecord(
                "read", ["conversation_id": .int(r.conversationId), "user_id": .int(r.userId), "seq": .int(r.seq)],
                text: "\(names.name(r.userId)) read up to #\(r.seq)", style: .dim)
        case .messageHidden:
            return nil
        case .messageReaction(let r):
            let counts = r.reactions.map { "\($0.emoji) \($0.count)" }.joined(separator: "  ")
            return OutputRecord(
                "reaction",
                [
                    "conversation_id": .int(r.conversationId), "message_id": .int(r.messageId),
                    "user_id": .int(r.userId),
                    "emoji": r.emoji.map { .string($0) } ?? .null,
                ],
                text: r.emoji.map { "\(names.name(r.userId)) reacted \($0)  (\(counts))" }
                    ?? "\(names.name(r.userId)) removed a reaction",
                style: .dim)
        case .account(let e):
            return account(e, names: names)
        case .other(let raw):
            return community(raw) ?? social(raw) ?? moments(raw) ?? call(raw, names: names)
        case .state(let s):
            switch s {
            case .reconnecting(let attempt, let delay):
                return OutputRecord(
                    "connection", ["state": "reconnecting", "attempt": .int(Int64(attempt))],
                    text: "connection lost; reconnecting (attempt \(attempt), in \(String(format: "%.1f", delay)) s)",
                    style: .warning)
            case .authenticated:
                return nil
            case .closed(let reason):
                return OutputRecord(
                    "connection", ["state": "closed", "reason": .string("\(reason)")],
                    text: "connection closed: \(reason)", style: .failure)
            default:
                return nil
            }
        case .disconnected(let reason):
            return OutputRecord(
                "connection", ["state": "disconnected", "reason": .string(reason)], text: "disconnected (\(reason))",
                style: .warning)
        case .resumed(let summary):
            return summary.messages == 0
                ? nil
                : OutputRecord(
                    "resumed", ["messages": .int(Int64(summary.messages))],
                    text: "caught up \(summary.messages) message(s)", style: .dim)
        }
    }

    /// A presence change.
    public static func presence(_ p: PresenceUpdate, names: NameBook) -> OutputRecord {
        OutputRecord(
            "presence",
            ["user_id": .int(p.userId), "name": .string(names.name(p.userId)), "status": .string(p.status)],
            text: "\(names.name(p.userId)) is \(p.status)", style: .dim)
    }

    /// Friend, profile and session events.
    public static func account(_ e: ServerEvent, names: NameBook) -> OutputRecord? {
        switch e {
        case .friendRequestReceived(let r):
            let req = r.request
            if req.from.userId == names.selfId {
                return OutputRecord(
                    "friend.request.sent",
                    [
                        "request_id": .int(req.requestId), "user_id": .int(req.to.userId),
                        "name": .string(req.to.displayName),
                    ],
                    text: "friend request #\(req.requestId) sent to \(req.to.displayName)")
            }
            return OutputRecord(
                "friend.request.received",
                [
                    "request_id": .int(req.requestId), "user_id": .int(req.from.userId),
                    "name": .string(req.from.displayName),
                ],
                text:
                    """
                    friend request #\(req.requestId) from \(req.from.displayName) (accept with: friends accept \
                    \(req.requestId))
                    """,
                style: .incoming)
        case .friendRequestAccepted(let a):
            let other = a.requester.userId == names.selfId ? a.accepter : a.requester
            return OutputRecord(
                "friend.added",
                ["request_id": .int(a.requestId), "user_id": .int(other.userId), "name": .string(other.displayName)],
                text: "\(other.displayName) and you are now friends", style: .success)
        case .friendRequestDeclined(let d):
            return OutputRecord(
                "friend.request.declined", ["request_id": .int(d.requestId)],
                text: "friend request #\(d.requestId) was declined",
                style: .dim)
        case .friendRequestCancelled(let c):
            return OutputRecord(
                "friend.request.cancelled", ["request_id": .int(c.requestId)],
                text: "friend request #\(c.requestId) was cancelled",
                style: .dim)
        case .friendRemoved(let r):
            let other = r.userIds.first { $0 != names.selfId }
            return OutputRecord(
                "friend.removed", ["user_id": other.map { .int($0) } ?? .null],
                text: "\(names.name(other)) is no longer a friend",
                style: .dim)
        case .profileUpdated(let p):
            return OutputRecord(
                "profile.updated", ["user_id": .int(p.profile.userId), "name": .string(p.profile.displayName)],
                text: "\(names.name(p.profile.userId)) is now called \(p.profile.displayName)", style: .dim)
        case .sessionRevoked(let s):
            return OutputRecord(
                "session.revoked", ["session_id": .int(s.sessionId)], text: "this session was revoked", style: .failure)
        case .unknown(let name):
            return OutputRecord(name, text: "event \(name)", style: .dim)
        }
    }

    /// Call events (and unknown events as their name).
    public static func call(_ raw: RawEvent, names: NameBook) -> OutputRecord? {
        switch raw.name {
        case "call.ring":
            guard let r = try? raw.decode(CallEvents.Ring.self) else { break }
            return OutputRecord(
                "call.ring",
                [
                    "call_id": .string(r.callId), "caller_id": .int(r.caller.userId),
                    "caller": .string(r.caller.displayName), "media": .string(r.media),
                ],
                text: "incoming \(r.media) call from \(r.caller.displayName) (call \(r.callId))", style: .warning)
        case "call.ringing":
            guard let r = try? raw.decode(CallEvents.Ringing.self) else { break }
            return OutputRecord(
                "call.ringing", ["call_id": .string(r.callId), "devices": .int(Int64(r.devices))],
                text: "ringing on \(r.devices) device\(r.devices == 1 ? "" : "s")…", style: .warning)
        case "call.accepted":
            guard let a = try? raw.decode(CallEvents.Accepted.self) else { break }
            let media = a.answer.map { SDPGenerator.mediaKinds(in: $0).joined(separator: "+") } ?? ""
            return OutputRecord(
                "call.accepted", ["call_id": .string(a.callId), "answer": a.answer.map { .string($0) } ?? .null],
                text: "accepted: connected" + (media.isEmpty ? "" : " (answer: \(media))"), style: .success)
        case "call.signal":
            guard let s = try? raw.decode(CallEvents.Signal.self) else { break }
            return OutputRecord(
                "call.signal", ["call_id": .string(s.callId), "kind": .string(s.kind), "payload": .string(s.payload)],
                text: "signal received: \(s.kind) \(summary(ofSignal: s))", style: .dim)
        case "call.ended":
            guard let e = try? raw.decode(CallEvents.Ended.self) else { break }
            return ended(e)
        case CallEvents.AnsweredElsewhere.name:
            guard let r = try? raw.decode(CallEvents.AnsweredElsewhere.self) else { break }
            return OutputRecord(
                "call.answered_elsewhere", ["call_id": .string(r.callId)], text: "answered on another device",
                style: .dim)
        case "call.peer_connection_lost":
            guard let l = try? raw.decode(CallEvents.PeerConnectionLost.self) else { break }
            return OutputRecord(
                "call.peer_connection_lost", ["call_id": .string(l.callId), "grace_ms": .int(l.graceMs)],
                text: "the other side lost its connection; waiting up to \(seconds(l.graceMs)) for it", style: .warning)
        case CallEvents.PeerReconnected.name:
            guard let r = try? raw.decode(CallEvents.PeerReconnected.self) else { break }
            return OutputRecord(
                "call.peer_reconnected", ["call_id": .string(r.callId)], text: "the other side is back", style: .success
            )
        case "call.resumed":
            guard let r = try? raw.decode(CallEvents.Resumed.self) else { break }
            return OutputRecord(
                "call.resumed", ["call_id": .string(r.call.callId)], text: "call resumed", style: .success)
        default:
            break
        }
        return OutputRecord(
            raw.name, ["frame": .string(String(decoding: raw.frame, as: UTF8.self))], text: "event \(raw.name)",
            style: .dim)
    }

    /// `call.ended`: reason and duration.
    public static func ended(_ e: CallEvents.Ended) -> OutputRecord {
        let style: OutputStyle = e.reason == "hangup" ? .success : .failure
        return OutputRecord(
            "call.ended",
            ["call_id": .string(e.callId), "reason": .string(e.reason), "duration_ms": .int(e.durationMs)],
            text: "call ended: \(CallOutcome.describe(reason: e.reason)), duration \(seconds(e.durationMs))",
            style: style)
    }

    /// A signal in a few words: the candidate line or the SDP's media.
    public static func summary(ofSignal s: CallEvents.Signal) -> String {
        switch s.kind {
        case "offer", "answer":
            return "(SDP: " + SDPGenerator.mediaKinds(in: s.payload).joined(separator: "+") + ")"
        case "ice_candidate":
            guard let line = SDPGenerator.candidateLine(ofPayload: s.payload) else {
                return String(s.payload.prefix(80))
            }
            return line.isEmpty ? "(end of candidates)" : String(line.prefix(80))
        default:
            return String(s.payload.prefix(80))
        }
    }

    /// Milliseconds as `3.2 s`.
    public static func seconds(_ ms: Int64) -> String {
        "\(ms / 1000).\((ms % 1000) / 100) s"
    }

    /// A waveform (values 0-31) as 20 block characters.
    public static func sketch(_ waveform: [Int]) -> String {
        guard !waveform.isEmpty else { return "" }
        let blocks = Array("▁▂▃▄▅▆▇█")
        let step = max(1, waveform.count / 20)
        return String(
            stride(from: 0, to: waveform.count, by: step).map { i in
                let slice = waveform[i..<min(i + step, waveform.count)]
                let v = slice.max() ?? 0
                return blocks[min(blocks.count - 1, max(0, v) * blocks.count / 32)]
            })
    }

    /// A call record: `Ann's voice call: completed, 4.2 s`, `your video call: missed`.
    static func callText(_ s: SystemNotice, names: NameBook) -> String {
        let caller = names.name(s.actorId)
        var text = "\(caller == "you" ? "your" : caller + "'s") \(s.media ?? "voice") call: \(s.outcome ?? "ended")"
        if let ms = s.durationMs, ms > 0 { text += ", \(seconds(ms))" }
        return text
    }

    private static func systemText(_ s: SystemNotice?, names: NameBook) -> String {
        guard let s else { return "system message" }
        switch s.event {
        case "member_added":
            return "\(names.name(s.actorId)) added \((s.userIds ?? []).map { names.name($0) }.joined(separator: ", "))"
        case "member_left": return "\(names.name(s.actorId)) left"
        case "renamed": return "\(names.name(s.actorId)) renamed the group to \(s.name ?? "")"
        case "message_deleted": return "a message was deleted"
        case "created":
            return "\(names.name(s.actorId)) created \(s.name.map { "the group \($0)" } ?? "the conversation")"
        case "call": return callText(s, names: names)
        default: return s.event
        }
    }
}
