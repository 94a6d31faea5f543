//===----------------------------------------------------------------------===//
//
// This source file is part of the Switchboard open source project
//
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//

import SwitchboardDomain

/// The seqs of one conversation sent on one connection.
///
/// Two exact records: `sent`, every seq sent, live or by a catch-up (a live event is not sent twice: a held one the
/// catch-up sent already), and `live`, the seqs sent live (a catch-up skips these and sends every other seq it reads;
/// a `sync` asked for again repeats its earlier catch-up and the client drops what it has). Live delivery is in seq
/// order but can have gaps (a commit whose answer was lost and could not be resolved is not delivered live), so
/// these are exact records, not ranges. Kept as one inline run while every seq was sent live without a gap (the
/// common case: no arrays, one comparison per live delivery); as two `SentSeqs` otherwise.
struct ConversationSeqs {
    private enum Storage {
        case empty
        /// Exactly the seqs `lower...upper` were sent, all of them live.
        case liveRun(lower: Int64, upper: Int64)
        case general(sent: SentSeqs, live: SentSeqs)
    }

    private var storage = Storage.empty

    /// Records a live delivery of `seq`; false if it was sent already (then nothing changes).
    mutating func insertLive(_ seq: Int64) -> Bool {
        switch storage {
        case .empty:
            storage = .liveRun(lower: seq, upper: seq)
            return true
        case .liveRun(let lower, let upper):
            if upper < Int64.max && seq == upper + 1 {
                storage = .liveRun(lower: lower, upper: seq)
                return true
            }
            if seq >= lower && seq <= upper { return false }
            var sent = SentSeqs(lower...upper)
            var live = sent
            sent.insert(seq)
            live.insert(seq)
            storage = .general(sent: sent, live: live)
            return true
        case .general(var sent, var live):
            storage = .empty  // no copy of the arrays while they are out
            defer { storage = .general(sent: sent, live: live) }
            guard sent.insert(seq) else { return false }
            live.insert(seq)
            return true
        }
    }

    /// Whether `seq` was sent live.
    func wasSentLive(_ seq: Int64) -> Bool {
        switch storage {
        case .empty: return false
        case .liveRun(let lower, let upper): return seq >= lower && seq <= upper
        case .general(_, let live): return live.contains(seq)
        }
    }

    /// Records `seq` as sent by a catch-up.
    mutating func insertCaughtUp(_ seq: Int64) {
        switch storage {
        case .empty:
            var sent = SentSeqs()
            sent.insert(seq)
            storage = .general(sent: sent, live: SentSeqs())
        case .liveRun(let lower, let upper):
            if seq >= lower && seq <= upper { return }
            var sent = SentSeqs(lower...upper)
            sent.insert(seq)
            storage = .general(sent: sent, live: SentSeqs(lower...upper))
        case .general(var sent, let live):
            storage = .empty
            sent.insert(seq)
            storage = .general(sent: sent, live: live)
        }
    }

    /// Whether `seq` was sent (live or by a catch-up).
    func wasSent(_ seq: Int64) -> Bool {
        switch storage {
        case .empty: return false
        case .liveRun(let lower, let upper): return seq >= lower && seq <= upper
        case .general(let sent, _): return sent.contains(seq)
        }
    }
}
