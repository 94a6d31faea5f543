//===----------------------------------------------------------------------===//
//
// This source file is part of the Switchboard open source project
//
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//

/// Why a voice recording was refused or could not be transcoded.
///
/// `description` names the case and the parser's reason; it never contains audio bytes.
public enum VoiceError: Error, Equatable, Sendable, CustomStringConvertible {
    /// The bytes are not WAV, Ogg/Opus or WebM/Opus (or they are, but with an encoding we do not accept,
    /// such as 8-bit or mu-law WAV, Ogg/Vorbis, more than two WAV channels or a rate outside 8-48 kHz).
    case unsupportedType
    /// The container or the audio in it is broken; the string says where (for logs, not for end users).
    case malformed(String)
    /// The input is larger than `TranscodeOptions.maxInputBytes`.
    case tooLarge
    /// The audio is longer than `TranscodeOptions.maxDurationMs`; carries the recording's duration in ms.
    case tooLong(durationMs: Int)
    /// The recording decodes to zero samples (or the body is empty).
    case empty
    /// libopusenc refused a setting or failed while encoding; carries its error code (`OPE_*`).
    case encoderFailure(Int32)

    /// The HTTP status the server answers with: 415, 422, 413, 413, 422, 500.
    ///
    /// A recording that is too long is a size limit like `tooLarge`, so it maps to 413 as well;
    /// `wireCode` keeps the two apart.
    public var httpStatus: Int {
        switch self {
        case .unsupportedType: 415
        case .malformed: 422
        case .tooLarge: 413
        case .tooLong: 413
        case .empty: 422
        case .encoderFailure: 500
        }
    }

    /// A stable machine-readable code for error bodies on the wire.
    public var wireCode: String {
        switch self {
        case .unsupportedType: "unsupported_media_type"
        case .malformed: "malformed_audio"
        case .tooLarge: "audio_too_large"
        case .tooLong: "audio_too_long"
        case .empty: "audio_empty"
        case .encoderFailure: "transcode_failed"
        }
    }

    public var description: String {
        switch self {
        case .unsupportedType: "VoiceError.unsupportedType"
        case .malformed(let reason): "VoiceError.malformed(\(reason))"
        case .tooLarge: "VoiceError.tooLarge"
        case .tooLong(let ms): "VoiceError.tooLong(\(ms) ms)"
        case .empty: "VoiceError.empty"
        case .encoderFailure(let code): "VoiceError.encoderFailure(\(code))"
        }
    }
}
