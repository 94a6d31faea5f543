//===----------------------------------------------------------------------===//
//
// This source file is part of the Switchboard open source project
//
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//

/// A set of user ids kept as one sorted array: presence's friend lists and their watchers, one of each per online
/// user.
///
/// A `Set<Int64>` of four friends allocates 128 bytes (its header, a bitmap, eight buckets); this holds them in 64
/// (an array's header and the four ids), and a thousand in 8 KB instead of about 24 KB. Lookups are binary searches;
/// an insert or remove moves the ids after it (friend lists change rarely and are read on every presence change).
/// Iteration is in ascending order.
public struct SortedIDSet: Sendable, Sequence, Equatable, ExpressibleByArrayLiteral {
    public private(set) var ids: [Int64]

    public init() { ids = [] }

    public init(_ elements: some Sequence<Int64>) {
        var sorted = Array(elements)
        sorted.sort()
        var kept = 0
        for i in sorted.indices where kept == 0 || sorted[i] != sorted[kept - 1] {
            sorted[kept] = sorted[i]
            kept += 1
        }
        sorted.removeLast(sorted.count - kept)
        ids = sorted
    }

    public init(arrayLiteral elements: Int64...) { self.init(elements) }

    public var isEmpty: Bool { ids.isEmpty }
    public var count: Int { ids.count }

    /// The index of `id`, or where it would go.
    private func position(of id: Int64) -> Int {
        var low = 0
        var high = ids.count
        while low < high {
            let middle = (low + high) / 2
            if ids[middle] < id { low = middle + 1 } else { high = middle }
        }
        return low
    }

    public func contains(_ id: Int64) -> Bool {
        let i = position(of: id)
        return i < ids.count && ids[i] == id
    }

    /// Adds `id`; false if it was there.
    @discardableResult
    public mutating func insert(_ id: Int64) -> Bool {
        let i = position(of: id)
        if i < ids.count && ids[i] == id { return false }
        if ids.count < ids.capacity {
            ids.insert(id, at: i)
        } else {
            // Grown by one, not doubled: a list built one friend at a time stays as small as one built at once (an
            // insert moves the ids after it anyway).
            var grown: [Int64] = []
            grown.reserveCapacity(ids.count + 1)
            grown.append(contentsOf: ids[..<i])
            grown.append(id)
            grown.append(contentsOf: ids[i...])
            ids = grown
        }
        return true
    }

    /// Removes `id`; false if it was not there. An emptied set frees its storage.
    @discardableResult
    public mutating func remove(_ id: Int64) -> Bool {
        let i = position(of: id)
        guard i < ids.count && ids[i] == id else { return false }
        ids.remove(at: i)
        if ids.isEmpty { ids = [] }
        return true
    }

    public func makeIterator() -> IndexingIterator<[Int64]> { ids.makeIterator() }

    /// The ids of both sets, ascending, each once (one merge, no hashing).
    public static func union(_ a: SortedIDSet?, _ b: SortedIDSet?) -> [Int64] {
        let x = a?.ids ?? []
        let y = b?.ids ?? []
        if y.isEmpty { return x }
        if x.isEmpty { return y }
        var out: [Int64] = []
        out.reserveCapacity(x.count + y.count)
        var i = 0
        var j = 0
        while i < x.count && j < y.count {
            if x[i] < y[j] {
                out.append(x[i])
                i += 1
            } else if y[j] < x[i] {
                out.append(y[j])
                j += 1
            } else {
                out.append(x[i])
                i += 1
                j += 1
            }
        }
        out.append(contentsOf: x[i...])
        out.append(contentsOf: y[j...])
        return out
    }
}
