//===----------------------------------------------------------------------===//
//
// This source file is part of the Switchboard open source project
//
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//

import Foundation

/// A voice message's audio as messages carry it (the audio itself is fetched over HTTP).
public struct VoiceAttachment: Codable, Sendable, Equatable {
    public var voiceId: Int64
    public var durationMs: Int64
    /// 100 values 0-31.
    public var waveform: [Int]
    public var size: Int64
    public var mimeType: String

    public init(voiceId: Int64, durationMs: Int64, waveform: [Int], size: Int64, mimeType: String) {
        self.voiceId = voiceId
        self.durationMs = durationMs
        self.waveform = waveform
        self.size = size
        self.mimeType = mimeType
    }

    /// The JSON stored in `messages.body`.
    public var json: String { String(decoding: MessageJSON.encode(self), as: UTF8.self) }

    /// Parses stored JSON.
    public static func parse(_ text: String) -> VoiceAttachment? {
        let decoder = JSONDecoder()
        decoder.keyDecodingStrategy = .convertFromSnakeCase
        return try? decoder.decode(VoiceAttachment.self, from: Data(text.utf8))
    }
}
