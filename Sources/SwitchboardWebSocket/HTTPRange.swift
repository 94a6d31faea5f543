//===----------------------------------------------------------------------===//
//
// This source file is part of the Switchboard open source project
//
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//

/// A `Range` request header for one representation of `size` bytes (RFC 9110 §14).
public enum HTTPRange: Equatable, Sendable {
    /// No usable range: serve the whole representation with 200 (absent, not `bytes`, malformed, or several
    /// ranges, which a server may ignore).
    case none
    /// A range that does not overlap the representation: 416 with `Content-Range: bytes */size`.
    case unsatisfiable
    /// The bytes to send with 206 (`first...last`, within `0..<size`).
    case range(ClosedRange<Int>)

    /// Parses `bytes=a-b`, `bytes=a-` and `bytes=-n`.
    public static func parse(_ header: String?, size: Int) -> HTTPRange {
        guard let header, header.hasPrefix("bytes="), size >= 0 else { return .none }
        let spec = header.dropFirst(6).trimmingCharacters(in: " \t")
        guard !spec.contains(","), let dash = spec.firstIndex(of: "-") else { return .none }
        let first = spec[..<dash].trimmingCharacters(in: " \t")
        let last = spec[spec.index(after: dash)...].trimmingCharacters(in: " \t")
        guard first.utf8.count <= 18, last.utf8.count <= 18,
            first.utf8.allSatisfy({ $0 >= 48 && $0 <= 57 }), last.utf8.allSatisfy({ $0 >= 48 && $0 <= 57 })
        else { return .none }
        if first.isEmpty {
            guard let suffix = Int(last) else { return .none }
            guard suffix > 0, size > 0 else { return .unsatisfiable }
            return .range(max(0, size - suffix)...(size - 1))
        }
        guard let start = Int(first) else { return .none }
        guard start < size else { return .unsatisfiable }
        if last.isEmpty { return .range(start...(size - 1)) }
        guard let end = Int(last), end >= start else { return .none }
        return .range(start...min(end, size - 1))
    }
}

extension Substring {
    fileprivate func trimmingCharacters(in set: String) -> String {
        let chars = Set(set)
        return String(self.drop { chars.contains($0) }.reversed().drop { chars.contains($0) }.reversed())
    }
}

extension String {
    fileprivate func trimmingCharacters(in set: String) -> String { self[...].trimmingCharacters(in: set) }
}
