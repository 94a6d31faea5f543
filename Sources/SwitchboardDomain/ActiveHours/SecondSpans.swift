//===----------------------------------------------------------------------===//
//
// This source file is part of the Switchboard open source project
//
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//

/// Active seconds of one hour: sorted, disjoint, non-adjacent half-open ranges of second offsets from the hour's start.
public struct SecondSpans: Sendable, Equatable {
    public private(set) var ranges: [Range<Int>] = []

    public init(_ ranges: [Range<Int>] = []) {
        for r in ranges { insert(r) }
    }

    /// Adds a range (a union: seconds already present count once).
    public mutating func insert(_ range: Range<Int>) {
        guard !range.isEmpty else { return }
        var lower = range.lowerBound
        var upper = range.upperBound
        var kept: [Range<Int>] = []
        kept.reserveCapacity(ranges.count + 1)
        var placed = false
        for r in ranges {
            if r.upperBound < lower {
                kept.append(r)
            } else if r.lowerBound > upper {
                if !placed {
                    kept.append(lower..<upper)
                    placed = true
                }
                kept.append(r)
            } else {
                lower = min(lower, r.lowerBound)
                upper = max(upper, r.upperBound)
            }
        }
        if !placed { kept.append(lower..<upper) }
        ranges = kept
    }

    public mutating func formUnion(_ other: SecondSpans) {
        for r in other.ranges { insert(r) }
    }

    /// The parts of `range` these spans do not cover, in order.
    public func gaps(in range: Range<Int>) -> [Range<Int>] {
        var out: [Range<Int>] = []
        var at = range.lowerBound
        for r in ranges where r.upperBound > at {
            if r.lowerBound >= range.upperBound { break }
            if r.lowerBound > at { out.append(at..<r.lowerBound) }
            at = max(at, r.upperBound)
            if at >= range.upperBound { break }
        }
        if at < range.upperBound { out.append(at..<range.upperBound) }
        return out
    }

    /// The number of seconds covered.
    public var total: Int { ranges.reduce(0) { $0 + $1.count } }

    /// PostgreSQL's text form of an `int4multirange`: `{[0,10),[20,30)}`.
    public var sqlLiteral: String {
        "{" + ranges.map { "[\($0.lowerBound),\($0.upperBound))" }.joined(separator: ",") + "}"
    }

    /// Reads PostgreSQL's text form of an `int4multirange` of canonical `[a,b)` ranges; nil when malformed.
    public init?(sqlLiteral text: String) {
        guard text.hasPrefix("{"), text.hasSuffix("}") else { return nil }
        let body = text.dropFirst().dropLast()
        guard !body.isEmpty else { return }
        for part in body.split(separator: ")", omittingEmptySubsequences: true) {
            var item = part[...]
            if item.hasPrefix(",") { item = item.dropFirst() }
            guard item.hasPrefix("[") else { return nil }
            let bounds = item.dropFirst().split(separator: ",")
            guard bounds.count == 2, let a = Int(bounds[0]), let b = Int(bounds[1]), a <= b else { return nil }
            insert(a..<b)
        }
    }
}
