//===----------------------------------------------------------------------===//
//
// This source file is part of the Switchboard open source project
//
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//

public import SwitchboardProtocol

/// A stored voice clip's metadata.
public struct VoiceClip: Sendable, Equatable {
    public var id: Int64
    public var uploaderId: Int64
    public var durationMs: Int64
    public var waveform: [Int]
    public var size: Int64
    public var sha256Hex: String

    public var attachment: VoiceAttachment {
        VoiceAttachment(voiceId: id, durationMs: durationMs, waveform: waveform, size: size, mimeType: "audio/ogg")
    }
}
