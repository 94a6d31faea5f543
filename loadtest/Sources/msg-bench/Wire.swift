//===----------------------------------------------------------------------===//
//
// This source file is part of the Switchboard open source project
//
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//

// Cheap byte scans for the hot paths (a JSON parse per delivery would cost more than the server's work),
// the users file, and small shared helpers.
import Foundation
import Histogram

enum Wire {
    static let okPrefix = Array(#"{"ok":"#.utf8)
    static let messageEventPrefix = Array(#"{"ev":"message","message":{"client_id":""#.utf8)
    static let errorKey = Array(#"{"error":"#.utf8)

    static func hasPrefix(_ bytes: [UInt8], _ prefix: [UInt8]) -> Bool {
        guard bytes.count >= prefix.count else { return false }
        for i in 0..<prefix.count where bytes[i] != prefix[i] { return false }
        return true
    }

    /// Replies are `{"ok":...,"re":N}` or `{"error":...,"re":N}` (keys sorted, so `"re":` is near the end);
    /// anything else is an event (their keys are sorted too: `"ev"` is not always first).
    static func classify(_ bytes: [UInt8]) -> Incoming {
        if hasPrefix(bytes, okPrefix) {
            if let id = replyId(bytes) { return .reply(id: id) }
            return .error(id: nil)
        }
        if hasPrefix(bytes, errorKey) { return .error(id: replyId(bytes)) }
        return .event
    }

    /// The integer after the last `"re":`.
    static func replyId(_ b: [UInt8]) -> Int? {
        // Search backwards for `"re":`.
        var i = b.count - 5
        while i >= 0 {
            if b[i] == 0x22, b[i + 1] == 0x72, b[i + 2] == 0x65, b[i + 3] == 0x22, b[i + 4] == 0x3A {
                return parseInt(b, from: i + 5).value
            }
            i -= 1
        }
        return nil
    }

    /// Parses a non-negative decimal integer at `from`; returns it and the index after it.
    static func parseInt(_ b: [UInt8], from: Int) -> (value: Int?, end: Int) {
        var i = from
        var v = 0
        while i < b.count, b[i] >= 0x30, b[i] <= 0x39 {
            v = v &* 10 &+ Int(b[i] - 0x30)
            i += 1
        }
        return (i > from ? v : nil, i)
    }

    /// For a `message` event whose client id starts with `<nanoseconds>.`: those nanoseconds.
    static func sentAt(_ bytes: [UInt8]) -> UInt64? {
        guard hasPrefix(bytes, messageEventPrefix) else { return nil }
        let (v, end) = parseInt(bytes, from: messageEventPrefix.count)
        guard let v, end < bytes.count, bytes[end] == 0x2E else { return nil }
        return UInt64(v)
    }

    /// The value of `"name":"..."` or `"name":N` (first occurrence), for error messages and events.
    static func field(_ bytes: [UInt8], _ name: String) -> String? {
        guard let object = try? JSONSerialization.jsonObject(with: Data(bytes)) as? [String: Any] else { return nil }
        return lookup(object, name).map { "\($0)" }
    }

    private static func lookup(_ object: [String: Any], _ name: String) -> Any? {
        if let v = object[name] { return v }
        for v in object.values {
            if let o = v as? [String: Any], let found = lookup(o, name) { return found }
        }
        return nil
    }
}

typealias Latencies = Histogram<UInt64>

func makeHistogram() -> Latencies {
    Histogram<UInt64>(highestTrackableValue: 120_000_000_000, numberOfSignificantValueDigits: .three)
}

/// Percentiles in microseconds (or milliseconds) as JSON-ready values.
func percentiles(_ h: Latencies, unit: Double = 1000) -> [String: Double] {
    func r(_ v: UInt64) -> Double { (Double(v) / unit * 10).rounded() / 10 }
    return [
        "p50": r(h.valueAtPercentile(50)), "p99": r(h.valueAtPercentile(99)), "p999": r(h.valueAtPercentile(99.9)),
        "max": r(h.max), "count": Double(h.totalCount),
    ]
}

/// Prints a result as one JSON object (sorted keys) or as `key: value` lines.
func report(_ result: [String: Any], json: Bool) {
    if json {
        let data = (try? JSONSerialization.data(withJSONObject: result, options: [.sortedKeys])) ?? Data()
        print(String(decoding: data, as: UTF8.self))
    } else {
        for key in result.keys.sorted() {
            if let nested = result[key] as? [String: Any] {
                let parts = nested.keys.sorted().map { "\($0) \(nested[$0]!)" }.joined(separator: ", ")
                print("\(key): \(parts)")
            } else {
                print("\(key): \(result[key]!)")
            }
        }
    }
}

/// Writes a line to standard error (progress; stdout is kept for the result).
func note(_ text: String) {
    let line = Array((text + "\n").utf8)
    line.withUnsafeBytes { _ = write(2, $0.baseAddress, $0.count) }
}
