//===----------------------------------------------------------------------===//
//
// This source file is part of the Switchboard open source project
//
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//

/// A binary min-heap of (deadline, call) entries, ordered by deadline then call id.
///
/// Entries are never removed when a deadline stops applying (a call answered before its ring deadline);
/// the registry discards such stale entries when they reach the top, so the top is always current.
struct DeadlineHeap: Sendable {
    /// One deadline of one call.
    struct Entry: Sendable, Equatable {
        /// Monotonic nanoseconds.
        let deadline: UInt64
        /// The call it belongs to.
        let callID: CallID

        static func < (lhs: Entry, rhs: Entry) -> Bool {
            lhs.deadline != rhs.deadline ? lhs.deadline < rhs.deadline : lhs.callID < rhs.callID
        }
    }

    private var storage: [Entry] = []

    /// The earliest entry.
    var top: Entry? { self.storage.first }

    /// The number of entries, stale ones included.
    var count: Int { self.storage.count }

    /// Adds an entry. O(log n).
    mutating func push(_ entry: Entry) {
        self.storage.append(entry)
        var child = self.storage.count - 1
        while child > 0 {
            let parent = (child - 1) / 2
            guard self.storage[child] < self.storage[parent] else { break }
            self.storage.swapAt(child, parent)
            child = parent
        }
    }

    /// Removes and returns the earliest entry. O(log n).
    @discardableResult
    mutating func pop() -> Entry? {
        guard !self.storage.isEmpty else { return nil }
        self.storage.swapAt(0, self.storage.count - 1)
        let entry = self.storage.removeLast()
        var parent = 0
        while true {
            let left = 2 * parent + 1
            let right = left + 1
            var smallest = parent
            if left < self.storage.count && self.storage[left] < self.storage[smallest] { smallest = left }
            if right < self.storage.count && self.storage[right] < self.storage[smallest] { smallest = right }
            guard smallest != parent else { break }
            self.storage.swapAt(parent, smallest)
            parent = smallest
        }
        return entry
    }
}
