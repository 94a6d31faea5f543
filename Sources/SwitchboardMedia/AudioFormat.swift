//===----------------------------------------------------------------------===//
//
// This source file is part of the Switchboard open source project
//
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//

/// The upload containers the hub accepts.
public enum AudioFormat: String, Sendable, Equatable, CaseIterable {
    /// RIFF/WAVE with 16/24-bit PCM or 32-bit float samples.
    case wav
    /// Ogg with an Opus stream (RFC 7845).
    case oggOpus = "ogg-opus"
    /// WebM (or Matroska) with an Opus audio track, as MediaRecorder writes it.
    case webmOpus = "webm-opus"

    /// Recognises a container from its first bytes.
    ///
    /// - Parameter bytes: the start of the upload (64 bytes suffice for WAV and Ogg; the whole EBML header for WebM).
    /// - Returns: the format, or `nil` if the bytes are none of ours (an Ogg/Vorbis or Matroska file with a
    ///   DocType other than `webm`/`matroska` is `nil` too).
    public static func sniff(_ bytes: UnsafeRawBufferPointer) -> AudioFormat? {
        let r = ByteReader(bytes: bytes)
        if r.matches("RIFF", at: 0) && r.matches("WAVE", at: 8) { return .wav }
        if r.matches("OggS", at: 0), let segments = r.u8(26), r.matches("OpusHead", at: 27 + Int(segments)) {
            return .oggOpus
        }
        if bytes.count >= 4 && bytes[0] == 0x1A && bytes[1] == 0x45 && bytes[2] == 0xDF && bytes[3] == 0xA3 {
            if let docType = EBMLReader.docType(bytes), docType == "webm" || docType == "matroska" {
                return .webmOpus
            }
        }
        return nil
    }

    /// Recognises a container from its first bytes. See ``sniff(_:)-(UnsafeRawBufferPointer)``.
    public static func sniff(_ bytes: [UInt8]) -> AudioFormat? {
        bytes.withUnsafeBytes { sniff($0) }
    }

    /// What a `Content-Type` header declares.
    public enum Declared: Sendable, Equatable {
        /// One of our formats.
        case format(AudioFormat)
        /// `application/octet-stream`, an absent header, or anything we should sniff for.
        case unknown
        /// A type we know we do not accept (`audio/mpeg`, `audio/aac`, `text/plain`, ...).
        case unsupported
    }

    /// Maps a `Content-Type` value (parameters such as `;codecs=opus` allowed, case-insensitive) to a format.
    ///
    /// `audio/wav`, `audio/x-wav`, `audio/wave`, `audio/vnd.wave` -> `.wav`; `audio/ogg`, `audio/opus`,
    /// `application/ogg` -> `.oggOpus`; `audio/webm`, `video/webm` (with no `codecs` or with `opus` among them),
    /// `audio/x-matroska` -> `.webmOpus`; `application/octet-stream` or nil -> `.unknown`.
    public static func declared(contentType: String?) -> Declared {
        guard let contentType else { return .unknown }
        let parts = contentType.lowercased().split(separator: ";", omittingEmptySubsequences: false)
        let mime = parts.first.map { $0.trimmingSpaces } ?? ""
        let params = parts.dropFirst().map { $0.trimmingSpaces }
        let codecs = params.first { $0.hasPrefix("codecs=") }.map { String($0.dropFirst("codecs=".count)) }
        switch mime {
        case "", "application/octet-stream", "binary/octet-stream": return .unknown
        case "audio/wav", "audio/x-wav", "audio/wave", "audio/vnd.wave": return .format(.wav)
        case "audio/ogg", "audio/opus", "application/ogg", "audio/x-opus+ogg": return .format(.oggOpus)
        case "audio/webm", "video/webm", "audio/x-matroska", "video/x-matroska":
            if let codecs, !codecs.contains("opus") { return .unsupported }
            return .format(.webmOpus)
        default: return .unsupported
        }
    }

    /// Decides which reader to use: the content wins whenever it is one of our formats, whatever was declared.
    ///
    /// - Throws: `VoiceError.empty` for zero bytes; `VoiceError.malformed` if a supported type was declared
    ///   but the content is not recognisable (a broken or truncated header); `VoiceError.unsupportedType`
    ///   otherwise.
    public static func resolve(_ bytes: UnsafeRawBufferPointer, declaredType: String?) throws(VoiceError) -> AudioFormat
    {
        if bytes.isEmpty { throw .empty }
        if let sniffed = sniff(bytes) { return sniffed }
        switch declared(contentType: declaredType) {
        case .format(let format): throw .malformed("content is not a recognisable \(format.rawValue) file")
        case .unknown, .unsupported: throw .unsupportedType
        }
    }
}

extension Substring {
    fileprivate var trimmingSpaces: String {
        String(self.drop { $0 == " " || $0 == "\t" }.reversed().drop { $0 == " " || $0 == "\t" }.reversed())
    }
}
