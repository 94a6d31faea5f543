//===----------------------------------------------------------------------===//
//
// This source file is part of the Switchboard open source project
//
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//

import SwitchboardCore
import SwitchboardDomain
import Testing

@testable import SwitchboardServer

/// `ConversationSeqs` (one inline run while every seq was sent live without a gap) against the two exact records it
/// stands for, over random live deliveries (mostly in order, with gaps and repeats) and catch-ups.
struct ConversationSeqsTests {
    @Test func matchesTwoExactRecords() {
        var generator = SystemRandomNumberGenerator()
        for _ in 0..<300 {
            var seqs = ConversationSeqs()
            var sent = SentSeqs()
            var live = SentSeqs()
            var next = Int64.random(in: -3...3, using: &generator)
            for _ in 0..<60 {
                let seq: Int64
                switch Int.random(in: 0..<10, using: &generator) {
                case 0..<6: seq = next; next += 1  // the next seq
                case 6: next += 2; seq = next; next += 1  // a gap
                default: seq = next - Int64.random(in: 1...6, using: &generator)  // an earlier one
                }
                if Int.random(in: 0..<4, using: &generator) == 0 {
                    // A catch-up skips what was sent live and records the rest.
                    if !live.contains(seq) { sent.insert(seq) }
                    #expect(seqs.wasSentLive(seq) == live.contains(seq))
                    if !seqs.wasSentLive(seq) { seqs.insertCaughtUp(seq) }
                } else {
                    let expected = sent.insert(seq)
                    if expected { live.insert(seq) }
                    #expect(seqs.insertLive(seq) == expected)
                }
                for probe in (next - 8)...(next + 1) {
                    #expect(seqs.wasSentLive(probe) == live.contains(probe))
                    #expect(seqs.wasSent(probe) == sent.contains(probe))
                }
            }
        }
    }

    @Test func aRunAtTheTopOfTheRange() {
        var seqs = ConversationSeqs()
        let inserted = [Int64.max - 1, Int64.max, Int64.max, Int64.max - 3].map { seqs.insertLive($0) }
        #expect(inserted == [true, true, false, true])
        #expect(seqs.wasSentLive(Int64.max - 3) && !seqs.wasSent(Int64.max - 2))
    }
}
