//===----------------------------------------------------------------------===//
//
// This source file is part of the Switchboard open source project
//
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//

/// The byte limits every string parameter is held to while it is decoded, before any handler sees it
/// (`--max-line-parameter-bytes`, `--max-text-parameter-bytes`). A feature's own limits (characters, bytes) are
/// checked after, by its service, and are never larger in the defaults.
public struct StringParameterLimits: Sendable, Equatable {
    /// Most UTF-8 bytes of a `.line` or `.secret` string parameter.
    public var maxLineBytes: Int
    /// Most UTF-8 bytes of a `.text` or `.message` string parameter.
    public var maxTextBytes: Int

    public init(maxLineBytes: Int = 2048, maxTextBytes: Int = 48 * 1024) {
        self.maxLineBytes = maxLineBytes
        self.maxTextBytes = maxTextBytes
    }

    /// The problem of `value`, a string parameter of kind `kind` at `field` (snake_case path), or nil.
    public func problem(_ value: String, field: String, kind: StringParameter) -> String? {
        let limit = kind == .text || kind == .message ? maxTextBytes : maxLineBytes
        if value.utf8.count > limit { return "\(field) is longer than \(limit) bytes (UTF-8)" }
        if kind == .lookup { return nil }
        for scalar in value.unicodeScalars {
            let v = scalar.value
            if v == 0 { return "\(field) contains U+0000" }
            let isControl = v < 0x20 || (0x7F..<0xA0).contains(v)
            switch kind {
            case .line:
                if isControl || v == 0x2028 || v == 0x2029 {
                    return "\(field) contains a control character (\(StoredText.codePoint(v)))"
                }
            case .text, .message:
                if isControl && v != 0x0A && v != 0x0D && v != 0x09 {
                    return "\(field) contains a control character (\(StoredText.codePoint(v)))"
                }
            case .secret, .lookup:
                break
            }
        }
        return nil
    }
}
