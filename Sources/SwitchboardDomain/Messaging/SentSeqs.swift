//===----------------------------------------------------------------------===//
//
// This source file is part of the Switchboard open source project
//
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//

/// Exactly which sequence numbers of one conversation a connection was sent (live or by a catch-up), as
/// sorted, disjoint, non-adjacent closed ranges. Live delivery is in seq order but may have gaps (a message
/// committed while its commit's answer was lost is never delivered live), so a catch-up must skip only what
/// is recorded here, never "everything between the first and the last live seq".
///
/// The common case (the next seq after the last one) extends the last range in O(1); a gap starts a new
/// range; a catch-up filling a gap merges its neighbours.
public struct SentSeqs: Sendable, Equatable {
    /// The ranges, ascending; no two overlap or touch.
    public private(set) var ranges: [ClosedRange<Int64>] = []

    public init() {}

    /// Exactly the seqs of `range`.
    public init(_ range: ClosedRange<Int64>) { ranges = [range] }

    /// The highest seq sent, if any.
    public var highest: Int64? { ranges.last?.upperBound }

    /// Whether `seq` was sent.
    public func contains(_ seq: Int64) -> Bool {
        guard let i = index(atOrBefore: seq) else { return false }
        return ranges[i].contains(seq)
    }

    /// Records `seq` as sent. Returns false if it was already recorded.
    @discardableResult
    public mutating func insert(_ seq: Int64) -> Bool {
        if let last = ranges.last {
            if seq > last.upperBound {
                if last.upperBound < Int64.max, seq == last.upperBound + 1 {
                    ranges[ranges.count - 1] = last.lowerBound...seq
                } else {
                    ranges.append(seq...seq)
                }
                return true
            }
        } else {
            ranges.append(seq...seq)
            return true
        }
        // Somewhere before the end (a catch-up filling a gap).
        let i = index(atOrBefore: seq)
        if let i, ranges[i].contains(seq) { return false }
        // Here seq < the highest recorded seq, so seq + 1 cannot overflow; seq - 1 only when seq > Int64.min.
        let touchesLeft = i.map { seq > Int64.min && ranges[$0].upperBound == seq - 1 } ?? false
        let right = (i ?? -1) + 1
        let touchesRight = right < ranges.count && ranges[right].lowerBound == seq + 1
        switch (touchesLeft, touchesRight) {
        case (true, true):
            ranges[i!] = ranges[i!].lowerBound...ranges[right].upperBound
            ranges.remove(at: right)
        case (true, false):
            ranges[i!] = ranges[i!].lowerBound...seq
        case (false, true):
            ranges[right] = seq...ranges[right].upperBound
        case (false, false):
            ranges.insert(seq...seq, at: right)
        }
        return true
    }

    /// The index of the last range starting at or before `seq` (binary search).
    private func index(atOrBefore seq: Int64) -> Int? {
        var low = 0
        var high = ranges.count
        while low < high {
            let mid = (low + high) / 2
            if ranges[mid].lowerBound <= seq { low = mid + 1 } else { high = mid }
        }
        return low == 0 ? nil : low - 1
    }
}
