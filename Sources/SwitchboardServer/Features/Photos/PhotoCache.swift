//===----------------------------------------------------------------------===//
//
// This source file is part of the Switchboard open source project
//
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//

import Synchronization

/// This node's least-recently-used cache of photo renditions, bounded in bytes (`--photo-cache-bytes`).
///
/// A rendition's bytes never change for its id, so entries are never invalidated: a deleted photo is answered 404 by
/// the authorization query that runs on every request before the cache is read, and its entry ages out.
/// Thread-safe (one mutex; every operation is O(1)).
final class PhotoCache: Sendable {
    struct Key: Hashable, Sendable {
        var photoId: Int64
        var size: String
        var format: String
    }

    struct Entry: Sendable {
        var sha256: [UInt8]
        var bytes: [UInt8]
    }

    private struct Node {
        var key: Key
        var entry: Entry
        var prev: Int
        var next: Int
    }

    /// A doubly linked list over `nodes` (indices; -1 ends), most recent at `head`.
    private struct State {
        var index: [Key: Int] = [:]
        var nodes: [Node] = []
        var free: [Int] = []
        var head = -1
        var tail = -1
        var bytes = 0

        mutating func unlink(_ i: Int) {
            let n = nodes[i]
            if n.prev >= 0 { nodes[n.prev].next = n.next } else { head = n.next }
            if n.next >= 0 { nodes[n.next].prev = n.prev } else { tail = n.prev }
        }

        mutating func pushFront(_ i: Int) {
            nodes[i].prev = -1
            nodes[i].next = head
            if head >= 0 { nodes[head].prev = i }
            head = i
            if tail < 0 { tail = i }
        }
    }

    let capacity: Int
    private let state = Mutex(State())

    init(capacityBytes: Int) { capacity = max(0, capacityBytes) }

    /// The entry, made the most recent; nil on a miss.
    func get(_ key: Key) -> Entry? {
        state.withLock { s in
            guard let i = s.index[key] else { return nil }
            s.unlink(i)
            s.pushFront(i)
            return s.nodes[i].entry
        }
    }

    /// Adds an entry (an entry larger than the whole cache is not kept), evicting the least recent ones.
    func put(_ key: Key, _ entry: Entry) {
        let size = entry.bytes.count
        guard size <= capacity, size > 0 else { return }
        state.withLock { s in
            if let i = s.index[key] {
                s.unlink(i)
                s.pushFront(i)
                return
            }
            while s.bytes + size > capacity, s.tail >= 0 {
                let victim = s.tail
                s.unlink(victim)
                s.bytes -= s.nodes[victim].entry.bytes.count
                s.index[s.nodes[victim].key] = nil
                s.nodes[victim].entry = Entry(sha256: [], bytes: [])
                s.free.append(victim)
            }
            let node = Node(key: key, entry: entry, prev: -1, next: -1)
            let i: Int
            if let reused = s.free.popLast() {
                s.nodes[reused] = node
                i = reused
            } else {
                s.nodes.append(node)
                i = s.nodes.count - 1
            }
            s.index[key] = i
            s.pushFront(i)
            s.bytes += size
        }
    }

    /// Bytes held and entries.
    var usage: (bytes: Int, entries: Int) { state.withLock { ($0.bytes, $0.index.count) } }
}
