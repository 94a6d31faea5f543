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

/// Sends a chat's messages one at a time and reports each result to the session's input.
struct ChatSender: Sendable {
    let client: SwitchboardClient
    let conversationId: Int64
    let continuation: AsyncStream<SessionInput>.Continuation
    let context: CLIContext
    let url: String

    func deliver(_ item: OutgoingItem) async {
        do throws(SwitchboardClientError) {
            switch item {
            case .text(let text, let clientId):
                let ack = try await client.sendText(text, to: .conversation(conversationId), clientId: clientId)
                report(
                    OutputRecord(
                        "sent",
                        [
                            "client_id": .string(clientId), "conversation_id": .int(ack.conversationId),
                            "seq": .int(ack.seq),
                            "message_id": .int(ack.messageId), "ts": .string(ack.ts),
                        ],
                        text: "✓ delivered (#\(ack.seq))", style: .success))
            case .voice(let audio, let contentType):
                let clip = try await client.uploadVoice(audio, contentType: contentType)
                let ack = try await client.sendVoice(voiceId: clip.voiceId, to: .conversation(conversationId))
                report(
                    OutputRecord(
                        "sent",
                        [
                            "conversation_id": .int(ack.conversationId), "seq": .int(ack.seq),
                            "message_id": .int(ack.messageId),
                            "voice_id": .int(clip.voiceId), "duration_ms": .int(clip.durationMs),
                        ],
                        text:
                            "✓ voice message \(EventFormatter.seconds(clip.durationMs)) "
                            + "\(EventFormatter.sketch(clip.waveform)) "
                            + "delivered (#\(ack.seq))",
                        style: .success))
            }
            continuation.yield(.requestFinished(tag: "send", ok: true))
        } catch {
            let message = context.fail(error, "sending", url).message
            var fields: [String: JSONValue] = ["error": .string(message)]
            if case .text(_, let clientId) = item { fields["client_id"] = .string(clientId) }
            report(OutputRecord("send_failed", fields, text: "✗ not sent: \(message)", style: .failure))
            continuation.yield(.requestFinished(tag: "send", ok: false))
        }
    }

    private func report(_ record: OutputRecord) { continuation.yield(.record(record)) }
}
