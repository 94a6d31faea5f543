//===----------------------------------------------------------------------===//
//
// This source file is part of the Switchboard open source project
//
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//

/// Reads a request's top-level `id` and `op` in one pass over its bytes, validating the whole text as JSON
/// (RFC 8259) on the way, so that a request is decoded by `JSONDecoder` only once: for its parameters.
///
/// It answers only the common, unambiguous shape: a JSON object whose `id` is a plain integer that fits in 64
/// bits or a string without escapes of at most 64 bytes, whose `op` is a non-empty string without escapes,
/// each appearing once. Anything else (escapes in those two, a duplicate key, a number with a fraction or an
/// exponent as id, nesting deeper than `maxDepth`, or invalid JSON anywhere) is `nil`, and the caller takes
/// the exact path (`JSONDecoder`), which gives the documented error or the same result. So the scanner never
/// changes an answer; a differential fuzz target (`fuzz/ProtocolFuzz.swift`) checks that whenever it
/// answers, `JSONDecoder` reads the same id and op.
struct EnvelopeScanner {
    /// Deepest nesting the scanner follows (JSONDecoder's own limit is higher; deeper requests take the exact path).
    static let maxDepth = 64

    /// The id and op of `bytes`, or nil when the exact path must decide.
    static func scan(_ bytes: [UInt8]) -> (id: RequestID, op: String)? {
        bytes.withUnsafeBufferPointer { buffer in
            var scanner = EnvelopeScanner(buffer)
            return scanner.topLevel()
        }
    }

    private let b: UnsafeBufferPointer<UInt8>
    private var i = 0

    private init(_ buffer: UnsafeBufferPointer<UInt8>) { b = buffer }

    private mutating func topLevel() -> (id: RequestID, op: String)? {
        var id: RequestID?
        var op: String?
        let ok = topLevelMembers { key, value in
            if key.elementsEqual("id".utf8) {
                guard id == nil else { return false }
                switch value {
                case .integer(let v): id = .int(v)
                case .plainString(let s) where s.count <= 64: id = .string(String(decoding: s, as: UTF8.self))
                default: return false
                }
            } else if key.elementsEqual("op".utf8) {
                guard op == nil, case .plainString(let s) = value, !s.isEmpty else { return false }
                op = String(decoding: s, as: UTF8.self)
            }
            return true
        }
        guard ok, let id, let op else { return nil }
        return (id, op)
    }

    private func peek() -> UInt8? { i < b.count ? b[i] : nil }

    private mutating func skipSpace() {
        while i < b.count {
            switch b[i] {
            case 0x20, 0x09, 0x0A, 0x0D: i += 1
            default: return
            }
        }
    }

    /// A string without escapes (its bytes between the quotes), or nil for anything else.
    private mutating func plainString() -> UnsafeBufferPointer<UInt8>.SubSequence? {
        guard peek() == UInt8(ascii: "\"") else { return nil }
        let start = i + 1
        var j = start
        while j < b.count {
            let c = b[j]
            if c == UInt8(ascii: "\"") {
                i = j + 1
                return b[start..<j]
            }
            if c == UInt8(ascii: "\\") || c < 0x20 { return nil }
            if c >= 0x80 {
                guard let n = Self.utf8Sequence(b, at: j) else { return nil }
                j += n
                continue
            }
            j += 1
        }
        return nil
    }

    /// Skips one JSON value, validating it; false when it is not valid JSON (or too deep).
    private mutating func skipValue(depth: Int) -> Bool {
        guard depth <= Self.maxDepth, let c = peek() else { return false }
        switch c {
        case UInt8(ascii: "\""): return skipString()
        case UInt8(ascii: "{"):
            i += 1
            skipSpace()
            if peek() == UInt8(ascii: "}") {
                i += 1
                return true
            }
            while true {
                skipSpace()
                guard peek() == UInt8(ascii: "\""), skipString() else { return false }
                skipSpace()
                guard peek() == UInt8(ascii: ":") else { return false }
                i += 1
                skipSpace()
                guard skipValue(depth: depth + 1) else { return false }
                skipSpace()
                guard let d = peek() else { return false }
                i += 1
                if d == UInt8(ascii: ",") { continue }
                return d == UInt8(ascii: "}")
            }
        case UInt8(ascii: "["):
            i += 1
            skipSpace()
            if peek() == UInt8(ascii: "]") {
                i += 1
                return true
            }
            while true {
                skipSpace()
                guard skipValue(depth: depth + 1) else { return false }
                skipSpace()
                guard let d = peek() else { return false }
                i += 1
                if d == UInt8(ascii: ",") { continue }
                return d == UInt8(ascii: "]")
            }
        case UInt8(ascii: "t"): return literal("true")
        case UInt8(ascii: "f"): return literal("false")
        case UInt8(ascii: "n"): return literal("null")
        default: return skipNumber()
        }
    }

    private mutating func literal(_ word: StaticString) -> Bool {
        let n = word.utf8CodeUnitCount
        guard i + n <= b.count else { return false }
        for k in 0..<n where b[i + k] != word.utf8Start[k] { return false }
        i += n
        return true
    }

    /// A string with escapes validated (`\uXXXX` with four hex digits; surrogates are left to the exact path).
    private mutating func skipString() -> Bool {
        guard peek() == UInt8(ascii: "\"") else { return false }
        i += 1
        while i < b.count {
            let c = b[i]
            if c == UInt8(ascii: "\"") {
                i += 1
                return true
            }
            if c < 0x20 { return false }
            if c >= 0x80 {
                guard let n = Self.utf8Sequence(b, at: i) else { return false }
                i += n
                continue
            }
            if c == UInt8(ascii: "\\") {
                guard i + 1 < b.count else { return false }
                switch b[i + 1] {
                case UInt8(ascii: "\""), UInt8(ascii: "\\"), UInt8(ascii: "/"), UInt8(ascii: "b"), UInt8(ascii: "f"),
                    UInt8(ascii: "n"), UInt8(ascii: "r"), UInt8(ascii: "t"):
                    i += 2
                case UInt8(ascii: "u"):
                    guard i + 5 < b.count else { return false }
                    var unit: UInt16 = 0
                    for k in 2...5 {
                        guard let h = Self.hex(b[i + k]) else { return false }
                        unit = unit << 4 | UInt16(h)
                    }
                    // A surrogate escape (paired or lone): JSONDecoder's handling decides.
                    if unit >= 0xD800 && unit <= 0xDFFF { return false }
                    i += 6
                default: return false
                }
                continue
            }
            i += 1
        }
        return false
    }

    /// The length of the well-formed UTF-8 sequence at `k` (RFC 3629: no overlongs, surrogates or code points
    /// past U+10FFFF), or nil.
    private static func utf8Sequence(_ b: UnsafeBufferPointer<UInt8>, at k: Int) -> Int? {
        let c = b[k]
        func cont(_ j: Int, _ low: UInt8 = 0x80, _ high: UInt8 = 0xBF) -> Bool {
            j < b.count && b[j] >= low && b[j] <= high
        }
        switch c {
        case 0xC2...0xDF: return cont(k + 1) ? 2 : nil
        case 0xE0: return cont(k + 1, 0xA0) && cont(k + 2) ? 3 : nil
        case 0xE1...0xEC, 0xEE...0xEF: return cont(k + 1) && cont(k + 2) ? 3 : nil
        case 0xED: return cont(k + 1, 0x80, 0x9F) && cont(k + 2) ? 3 : nil
        case 0xF0: return cont(k + 1, 0x90) && cont(k + 2) && cont(k + 3) ? 4 : nil
        case 0xF1...0xF3: return cont(k + 1) && cont(k + 2) && cont(k + 3) ? 4 : nil
        case 0xF4: return cont(k + 1, 0x80, 0x8F) && cont(k + 2) && cont(k + 3) ? 4 : nil
        default: return nil
        }
    }

    private static func hex(_ c: UInt8) -> UInt8? {
        switch c {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): return c - UInt8(ascii: "0")
        case UInt8(ascii: "a")...UInt8(ascii: "f"): return c - UInt8(ascii: "a") + 10
        case UInt8(ascii: "A")...UInt8(ascii: "F"): return c - UInt8(ascii: "A") + 10
        default: return nil
        }
    }

    /// `-?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][+-]?[0-9]+)?`
    private mutating func skipNumber() -> Bool {
        if peek() == UInt8(ascii: "-") { i += 1 }
        guard let first = peek(), Self.isDigit(first) else { return false }
        i += 1
        if first != UInt8(ascii: "0") {
            while let c = peek(), Self.isDigit(c) { i += 1 }
        }
        if peek() == UInt8(ascii: ".") {
            i += 1
            guard let c = peek(), Self.isDigit(c) else { return false }
            while let c = peek(), Self.isDigit(c) { i += 1 }
        }
        if let e = peek(), e == UInt8(ascii: "e") || e == UInt8(ascii: "E") {
            i += 1
            if let s = peek(), s == UInt8(ascii: "+") || s == UInt8(ascii: "-") { i += 1 }
            guard let c = peek(), Self.isDigit(c) else { return false }
            while let c = peek(), Self.isDigit(c) { i += 1 }
        }
        return true
    }

    private static func isDigit(_ c: UInt8) -> Bool { c >= UInt8(ascii: "0") && c <= UInt8(ascii: "9") }
}

extension EnvelopeScanner {
    /// Reads the top-level members of a request in one pass, validating the whole text as JSON, and calls
    /// `body` with each key (its bytes, which have no escapes) and value; `body` returns false to decline.
    /// False when the text is not a JSON object of that shape (a key with escapes, a surrogate escape, nesting
    /// past `maxDepth`, invalid JSON), or when `body` declined: then the exact path (`JSONDecoder`) decides.
    static func members(
        of bytes: [UInt8], _ body: (UnsafeBufferPointer<UInt8>.SubSequence, ScannedValue) -> Bool
    ) -> Bool {
        bytes.withUnsafeBufferPointer { buffer in
            var scanner = EnvelopeScanner(buffer)
            return scanner.topLevelMembers(body)
        }
    }

    private mutating func topLevelMembers(_ body: (UnsafeBufferPointer<UInt8>.SubSequence, ScannedValue) -> Bool)
        -> Bool
    {
        skipSpace()
        guard peek() == UInt8(ascii: "{") else { return false }
        i += 1
        skipSpace()
        if peek() == UInt8(ascii: "}") {
            i += 1
        } else {
            while true {
                skipSpace()
                guard let key = plainString() else { return false }
                skipSpace()
                guard peek() == UInt8(ascii: ":") else { return false }
                i += 1
                skipSpace()
                guard let value = memberValue(), body(key, value) else { return false }
                skipSpace()
                guard let c = peek() else { return false }
                i += 1
                if c == UInt8(ascii: ",") { continue }
                guard c == UInt8(ascii: "}") else { return false }
                break
            }
        }
        skipSpace()
        return i == b.count
    }

    /// The value at the cursor, or nil when it is not valid JSON (or takes the exact path).
    private mutating func memberValue() -> ScannedValue? {
        guard let c = peek() else { return nil }
        switch c {
        case UInt8(ascii: "\""):
            let start = i
            if let plain = plainString() { return .plainString(plain) }
            i = start
            guard skipString() else { return nil }
            return .escapedString(b[(start + 1)..<(i - 1)])
        case UInt8(ascii: "n"):
            return literal("null") ? .null : nil
        case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"):
            let start = i
            guard skipNumber() else { return nil }
            return Self.plainInteger(b[start..<i]).map { .integer($0) } ?? .other
        default:
            return skipValue(depth: 1) ? .other : nil
        }
    }

    /// The text of a string that `skipString` validated (so every escape is complete and none is a
    /// surrogate), its escapes decoded.
    static func unescape(_ s: UnsafeBufferPointer<UInt8>.SubSequence) -> String {
        var out: [UInt8] = []
        out.reserveCapacity(s.count)
        var k = s.startIndex
        while k < s.endIndex {
            let c = s[k]
            guard c == UInt8(ascii: "\\") else {
                out.append(c)
                k += 1
                continue
            }
            switch s[k + 1] {
            case UInt8(ascii: "b"): out.append(0x08)
            case UInt8(ascii: "f"): out.append(0x0C)
            case UInt8(ascii: "n"): out.append(0x0A)
            case UInt8(ascii: "r"): out.append(0x0D)
            case UInt8(ascii: "t"): out.append(0x09)
            case UInt8(ascii: "u"):
                var unit: UInt32 = 0
                for m in 2...5 { unit = unit << 4 | UInt32(hex(s[k + m]) ?? 0) }
                // Not a surrogate (skipString refused them): a scalar of the basic plane.
                out.append(contentsOf: UTF8.encode(Unicode.Scalar(unit) ?? "\u{FFFD}")!)
                k += 6
                continue
            default: out.append(s[k + 1])  // \" \\ \/
            }
            k += 2
        }
        return String(decoding: out, as: UTF8.self)
    }

    /// A number's text as an Int64 when it is a plain integer in range (`-?(0|[1-9][0-9]*)`), else nil.
    private static func plainInteger(_ s: UnsafeBufferPointer<UInt8>.SubSequence) -> Int64? {
        var k = s.startIndex
        var negative = false
        if s[k] == UInt8(ascii: "-") {
            negative = true
            k += 1
        }
        guard k < s.endIndex, s.endIndex - k == 1 || s[k] != UInt8(ascii: "0") else { return nil }
        var value: Int64 = 0
        while k < s.endIndex {
            let c = s[k]
            guard isDigit(c) else { return nil }
            let digit = Int64(c - UInt8(ascii: "0"))
            let (m, o1) = value.multipliedReportingOverflow(by: 10)
            let (sum, o2) = negative ? m.subtractingReportingOverflow(digit) : m.addingReportingOverflow(digit)
            guard !o1, !o2 else { return nil }
            value = sum
            k += 1
        }
        return value
    }
}
