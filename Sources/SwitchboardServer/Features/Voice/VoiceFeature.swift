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
/// `GET`/`HEAD /voice/{id}` (authorized ranged downloads). The work runs in `VoiceService`, off the loops; the
/// routes are `session` routes because an upload's token is checked before its body is read and its body arrives
/// into an upload slot (`HTTPSession.readBody`).
struct VoiceFeature: Feature {
    static let migrations: [Migration] = [.v0004Voice]

    init(context: ProtocolServices) {}

    func register(in registry: inout FeatureRegistry) {
        registry.add(VoiceAccountData.deletionSteps)
        registry.add(VoiceAccountData.exportSection)
        registry.routes.addSession(["*"], "/voice") { session, head, rest, _ in session.handleVoice(head, rest: rest) }
        registry.routes.addSession(["*"], "/voice/{id...}") { session, head, rest, _ in
            session.handleVoice(head, rest: rest)
        }
    }
}
