//===----------------------------------------------------------------------===//
//
// This source file is part of the Switchboard open source project
//
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//

/// A minimal JSON writer for the hot paths (message events and acknowledgements): appends bytes without
/// going through `JSONEncoder`. The caller writes keys in sorted order to match the protocol's encoder.
public struct JSONWriter: Sendable {
    public private(set) var bytes: [UInt8] = []
    private var needsComma = false

    public init() { bytes.reserveCapacity(256) }

    public mutating func beginObject() {
        comma()
        bytes.append(UInt8(ascii: "{"))
        needsComma = false
    }

    public mutating func endObject() {
        bytes.append(UInt8(ascii: "}"))
        needsComma = true
    }

    public mutating func beginArray() {
        comma()
        bytes.append(UInt8(ascii: "["))
        needsComma = false
    }

    public mutating func endArray() {
        bytes.append(UInt8(ascii: "]"))
        needsComma = true
    }

    public mutating func key(_ key: String) {
        comma()
        appendString(key)
        bytes.append(UInt8(ascii: ":"))
        needsComma = false
    }

    public mutating func string(_ value: String) {
        comma()
        appendString(value)
        needsComma = true
    }

    public mutating func int(_ value: Int64) {
        comma()
        bytes.append(contentsOf: String(value).utf8)
        needsComma = true
    }

    /// Appends already-encoded JSON.
    public mutating func raw(_ json: String) {
        comma()
        bytes.append(contentsOf: json.utf8)
        needsComma = true
    }

    /// Appends already-encoded JSON.
    public mutating func raw(_ json: [UInt8]) {
        comma()
        bytes.append(contentsOf: json)
        needsComma = true
    }

    private mutating func comma() {
        if needsComma { bytes.append(UInt8(ascii: ",")) }
        needsComma = false
    }

    private static let hex: [UInt8] = Array("0123456789abcdef".utf8)

    private mutating func appendString(_ s: String) {
        bytes.append(UInt8(ascii: "\""))
        for b in s.utf8 {
            switch b {
            case UInt8(ascii: "\""): bytes.append(contentsOf: [UInt8(ascii: "\\"), UInt8(ascii: "\"")])
            case UInt8(ascii: "\\"): bytes.append(contentsOf: [UInt8(ascii: "\\"), UInt8(ascii: "\\")])
            case 0x0A: bytes.append(contentsOf: [UInt8(ascii: "\\"), UInt8(ascii: "n")])
            case 0x0D: bytes.append(contentsOf: [UInt8(ascii: "\\"), UInt8(ascii: "r")])
            case 0x09: bytes.append(contentsOf: [UInt8(ascii: "\\"), UInt8(ascii: "t")])
            case 0..<0x20, 0x7F:
                bytes.append(contentsOf: [UInt8(ascii: "\\"), UInt8(ascii: "u"), UInt8(ascii: "0"), UInt8(ascii: "0")])
                bytes.append(Self.hex[Int(b >> 4)])
                bytes.append(Self.hex[Int(b & 0xF)])
            default: bytes.append(b)
            }
        }
        bytes.append(UInt8(ascii: "\""))
    }
}
