//===----------------------------------------------------------------------===//
//
// This source file is part of the Switchboard open source project
//
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//

import Testing

@testable import SwitchboardDomain

/// `SortedIDSet` (presence's friend lists and watchers) against `Set<Int64>` over random operations.
struct SortedIDSetTests {
    @Test func behavesLikeASet() {
        var generator = SystemRandomNumberGenerator()
        for _ in 0..<200 {
            let start = (0..<Int.random(in: 0...12, using: &generator)).map { _ in
                Int64.random(in: -3...12, using: &generator)
            }
            var sorted = SortedIDSet(start)
            var reference = Set(start)
            for _ in 0..<40 {
                let id = Int64.random(in: -3...12, using: &generator)
                if Bool.random(using: &generator) {
                    #expect(sorted.insert(id) == reference.insert(id).inserted)
                } else {
                    #expect(sorted.remove(id) == (reference.remove(id) != nil))
                }
                #expect(sorted.count == reference.count)
                #expect(sorted.isEmpty == reference.isEmpty)
                #expect(Array(sorted) == reference.sorted())
                for probe in Int64(-4)...13 { #expect(sorted.contains(probe) == reference.contains(probe)) }
            }
        }
    }

    @Test func unionIsTheSortedUnion() {
        var generator = SystemRandomNumberGenerator()
        for _ in 0..<300 {
            let a = (0..<Int.random(in: 0...10, using: &generator)).map { _ in
                Int64.random(in: 0...15, using: &generator)
            }
            let b = (0..<Int.random(in: 0...10, using: &generator)).map { _ in
                Int64.random(in: 0...15, using: &generator)
            }
            let expected = Set(a).union(b).sorted()
            #expect(SortedIDSet.union(SortedIDSet(a), SortedIDSet(b)) == expected)
            #expect(SortedIDSet.union(SortedIDSet(a), nil) == Set(a).sorted())
            #expect(SortedIDSet.union(nil, SortedIDSet(b)) == Set(b).sorted())
        }
        #expect(SortedIDSet.union(nil, nil).isEmpty)
    }
}
