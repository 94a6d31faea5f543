//===----------------------------------------------------------------------===//
//
// This source file is part of the Switchboard open source project
//
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//

import SwitchboardDomain
import Testing

/// `insert` outside the `#expect` macro (which cannot take a mutating call).
private func inserted(_ sent: inout SentSeqs, _ seq: Int64) -> Bool { sent.insert(seq) }

@Suite("A connection's record of the seqs it was sent")
struct SentSeqsTests {
    @Test func liveDeliveryWithAGapThenACatchUpFillingIt() {
        var sent = SentSeqs()
        // Live: 1, then 3 (2 committed but was never delivered live).
        #expect(inserted(&sent, 1))
        #expect(inserted(&sent, 3))
        #expect(sent.ranges == [1...1, 3...3])
        #expect(sent.contains(1) && !sent.contains(2) && sent.contains(3))
        #expect(sent.highest == 3)
        // A catch-up from 1 sends 2 and skips 3.
        #expect(inserted(&sent, 2))
        #expect(!inserted(&sent, 3))
        #expect(sent.ranges == [1...3])
        // Live again, in order.
        for seq in Int64(4)...10 { #expect(inserted(&sent, seq)) }
        #expect(sent.ranges == [1...10])
        #expect(!inserted(&sent, 7))
    }

    @Test func manyGapsMergeInAnyOrder() {
        var sent = SentSeqs()
        for seq: Int64 in [10, 2, 6, 4, 8] { #expect(inserted(&sent, seq)) }
        #expect(sent.ranges == [2...2, 4...4, 6...6, 8...8, 10...10])
        for seq: Int64 in [5, 9, 3, 7] { #expect(inserted(&sent, seq)) }
        #expect(sent.ranges == [2...10])
        #expect(!sent.contains(1) && !sent.contains(11))
        #expect(inserted(&sent, 1))
        #expect(inserted(&sent, 12))
        #expect(sent.ranges == [1...10, 12...12])
    }

    @Test func everyOrderOfASmallSetGivesTheSameRecord() {
        // Exhaustive over insertion orders of {1, 2, 3, 5, 6}: the record is the set, whatever the order.
        let values: [Int64] = [1, 2, 3, 5, 6]
        func permutations(_ items: [Int64]) -> [[Int64]] {
            guard items.count > 1 else { return [items] }
            return items.indices.flatMap { i -> [[Int64]] in
                var rest = items
                let first = rest.remove(at: i)
                return permutations(rest).map { [first] + $0 }
            }
        }
        for order in permutations(values) {
            var sent = SentSeqs()
            for seq in order { #expect(inserted(&sent, seq)) }
            for seq in order { #expect(!inserted(&sent, seq)) }
            #expect(sent.ranges == [1...3, 5...6], "\(order)")
        }
    }

    @Test func extremesDoNotOverflow() {
        var sent = SentSeqs()
        #expect(inserted(&sent, Int64.max))
        #expect(inserted(&sent, Int64.min))
        #expect(inserted(&sent, Int64.max - 1))
        #expect(inserted(&sent, Int64.min + 1))
        #expect(sent.ranges == [Int64.min...(Int64.min + 1), (Int64.max - 1)...Int64.max])
        #expect(!inserted(&sent, Int64.max))
    }
}
