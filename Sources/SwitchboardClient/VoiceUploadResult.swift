//===----------------------------------------------------------------------===//
//
// This source file is part of the Switchboard open source project
//
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//

import Foundation

/// The server's answer to `POST /voice`: the stored clip (docs/protocol.md, "Voice").
public struct VoiceUploadResult: Codable, Sendable, Equatable {
    /// The clip's id, for `sendVoice(voiceId:to:)` and `GET /voice/{id}`.
    public var voiceId: Int64
    /// The duration of the transcoded recording.
    public var durationMs: Int64
    /// 100 values 0-31.
    public var waveform: [Int]
    /// Bytes of the stored Ogg/Opus file.
    public var size: Int64
    /// The SHA-256 of the stored file, in hex (also its `ETag`).
    public var sha256: String
    /// `audio/ogg`.
    public var mimeType: String

    public init(voiceId: Int64, durationMs: Int64, waveform: [Int], size: Int64, sha256: String, mimeType: String) {
        self.voiceId = voiceId
        self.durationMs = durationMs
        self.waveform = waveform
        self.size = size
        self.sha256 = sha256
        self.mimeType = mimeType
    }
}
