//===----------------------------------------------------------------------===//
//
// This source file is part of the Switchboard open source project
//
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//

import SwitchboardCore
import SwitchboardStore

/// Voice clips over HTTP: `POST /voice` (WAV, Ogg/Opus, WebM/Opus transcoded to Ogg/Opus, `docs/voice.md`) and
/// `GET`/`HEAD /voice/{id}` (authorized ranged downloads). The work runs in `VoiceService`, off the loops. The
/// download is a `handler` route (the router checks the bearer token and refuses a body); the upload stays a
/// `session` route because its body arrives into an upload slot after the token check, with its own answers.
struct VoiceFeature: Feature {
    static let migrations: [Migration] = [.v0004Voice]

    /// Uploads, transcoding, downloads (shared with photos, whose uploads take the same slots).
    let voice: VoiceService

    init(context: ProtocolServices) {
        voice = context.voice
    }

    func register(in registry: inout FeatureRegistry) {
        registry.add(VoiceAccountData.deletionSteps)
        registry.add(VoiceAccountData.exportSection)
        let limits = voice.configuration
        registry.configuration.append(
            ConfigurationGroup(
                feature: "voice",
                values: [
                    ("max-upload-bytes", "\(limits.maxUploadBytes)"),
                    ("max-audio-seconds", "\(limits.maxDurationSeconds)"),
                    ("voice-bitrate", "\(limits.bitrate)"), ("voice-complexity", "\(limits.complexity)"),
                    ("transcoders", "\(limits.workers)"), ("transcode-queue", "\(limits.maxWaiting)"),
                    ("max-concurrent-uploads", "\(limits.maxConcurrentUploads)"),
                    ("max-uploads-per-user", "\(limits.maxUploadsPerUser)"),
                ]))
        registry.routes.addSession(["*"], "/voice") { session, head, rest, _ in
            session.handleVoiceUpload(head, rest: rest)
        }
        // `{id...}`: any path under /voice/ is a download (a malformed id, "/voice/1/2" included, is 404 after the
        // token check, as it always was).
        let voice = self.voice
        registry.routes.add(["GET"], "/voice/{id...}", .bearer) { request in
            guard let identity = request.identity else { return .error(401, "not_authenticated", "no session") }
            return await voice.download(
                id: request.id("id"), for: identity, range: request.headers["range"],
                ifNoneMatch: request.headers["if-none-match"])
        }
    }
}
