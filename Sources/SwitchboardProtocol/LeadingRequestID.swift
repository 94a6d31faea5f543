//===----------------------------------------------------------------------===//
//
// This source file is part of the Switchboard open source project
//
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//

import Foundation

/// The id of a request that cannot be decoded whole (over the size limit, or not valid JSON further on), read from
/// the frame's first bytes only, so that the error reply can echo it: `{"id": 7, ...` or `{"op": "x", "id": "a",
/// ...`. A bounded scan, never a parse of the rest.
enum LeadingRequestID {
    /// How far into the frame the id may be found.
    static let window = 256

    /// The id when it is one of the frame's first members within `window` bytes (members before it being plain
    /// strings or numbers), followed by `,` or `}`; nil otherwise.
    static func scan(_ bytes: [UInt8]) -> RequestID? {
        let b = bytes.prefix(window)
        var i = b.startIndex
        func skipSpace() {
            while i < b.endIndex, [0x20, 0x09, 0x0A, 0x0D].contains(b[i]) { i += 1 }
        }
        /// A string without escapes, or a number: its bytes (quotes included for a string).
        func simpleValue() -> ArraySlice<UInt8>? {
            let start = i
            guard i < b.endIndex else { return nil }
            if b[i] == UInt8(ascii: "\"") {
                i += 1
                while i < b.endIndex, b[i] != UInt8(ascii: "\"") {
                    if b[i] == UInt8(ascii: "\\") || b[i] < 0x20 { return nil }
                    i += 1
                }
                guard i < b.endIndex else { return nil }
                i += 1
                return b[start..<i]
            }
            while i < b.endIndex, b[i] == UInt8(ascii: "-") || (0x30...0x39).contains(b[i]) { i += 1 }
            return i > start ? b[start..<i] : nil
        }
        skipSpace()
        guard i < b.endIndex, b[i] == UInt8(ascii: "{") else { return nil }
        i += 1
        while true {
            skipSpace()
            guard let key = simpleValue(), key.first == UInt8(ascii: "\"") else { return nil }
            skipSpace()
            guard i < b.endIndex, b[i] == UInt8(ascii: ":") else { return nil }
            i += 1
            skipSpace()
            guard let value = simpleValue() else { return nil }
            skipSpace()
            guard i < b.endIndex, b[i] == UInt8(ascii: ",") || b[i] == UInt8(ascii: "}") else { return nil }
            if key.elementsEqual("\"id\"".utf8) {
                // The same rules as the full decode (an integer in 64 bits, a string of at most 64 bytes).
                let array = Array("[".utf8) + value + Array("]".utf8)
                return (try? JSONDecoder().decode([RequestID].self, from: Data(array)))?.first
            }
            guard b[i] == UInt8(ascii: ",") else { return nil }
            i += 1
        }
    }
}
