//===----------------------------------------------------------------------===//
//
// This source file is part of the Switchboard open source project
//
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//

/// Finds a server frame's top-level `ev` without parsing the frame: the top-level members are walked (their values
/// skipped: strings with their escapes, nested objects and arrays by depth) to the object's end. Nil when the frame
/// is not one object, has no top-level `ev` or has it twice, or anything on the way is not as the server writes it
/// (a key or the name with an escape, the name not a string): the caller then parses. Nested values are not validated;
/// a raw event's consumer decodes the fields it needs. `fuzz/ClientScanFuzz.swift` checks it against
/// `JSONSerialization` on every input that is valid JSON.
enum TopLevelScan {
    static func eventName(_ b: [UInt8]) -> String? {
        let n = b.count
        var i = 0
        func skipSpace() { while i < n, b[i] == 0x20 || b[i] == 0x0A || b[i] == 0x0D || b[i] == 0x09 { i += 1 } }
        /// At an opening quote: the string's bytes' range, or nil if it has an escape or does not end.
        func plainString() -> Range<Int>? {
            let start = i + 1
            var j = start
            while j < n, b[j] != 0x22 {
                if b[j] == 0x5C { return nil }
                j += 1
            }
            guard j < n else { return nil }
            i = j + 1
            return start..<j
        }
        /// Skips a string at its opening quote, escapes included. False if it does not end.
        func skipString() -> Bool {
            var j = i + 1
            while j < n, b[j] != 0x22 { j += b[j] == 0x5C ? 2 : 1 }
            guard j < n else { return false }
            i = j + 1
            return true
        }
        /// Skips one value. False if the frame ends inside it or it is empty.
        func skipValue() -> Bool {
            guard i < n else { return false }
            switch b[i] {
            case 0x22: return skipString()
            case 0x7B, 0x5B:
                var depth = 0
                while i < n {
                    switch b[i] {
                    case 0x22:
                        guard skipString() else { return false }
                        continue
                    case 0x7B, 0x5B: depth += 1
                    case 0x7D, 0x5D:
                        depth -= 1
                        if depth == 0 {
                            i += 1
                            return true
                        }
                    default: break
                    }
                    i += 1
                }
                return false
            default:
                let start = i
                while i < n, b[i] != 0x2C, b[i] != 0x7D, b[i] != 0x20, b[i] != 0x0A, b[i] != 0x0D, b[i] != 0x09 {
                    i += 1
                }
                return i > start && i < n
            }
        }
        skipSpace()
        guard i < n, b[i] == 0x7B else { return nil }
        i += 1
        var name: Range<Int>?
        while true {
            skipSpace()
            guard i < n, b[i] == 0x22, let key = plainString() else { return nil }
            skipSpace()
            guard i < n, b[i] == 0x3A else { return nil }
            i += 1
            skipSpace()
            if key.count == 2, b[key.lowerBound] == 0x65, b[key.lowerBound + 1] == 0x76 {
                guard name == nil, i < n, b[i] == 0x22, let value = plainString() else { return nil }
                name = value
            } else {
                guard skipValue() else { return nil }
            }
            skipSpace()
            guard i < n else { return nil }
            if b[i] == 0x2C {
                i += 1
                continue
            }
            guard b[i] == 0x7D else { return nil }
            i += 1
            skipSpace()
            guard i == n, let name else { return nil }
            return String(decoding: b[name], as: UTF8.self)
        }
    }
}
