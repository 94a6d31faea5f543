//===----------------------------------------------------------------------===//
//
// This source file is part of the Switchboard open source project
//
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//

import Testing

@testable import SwitchboardDomain

/// `SmallIDSet` and `SmallDeviceMap` (a user's devices in `ActiveTimeTracker` and `PresenceTracker`) against `Set`
/// and `Dictionary` over random operations.
struct SmallDeviceCollectionsTests {
    @Test func behavesLikeASet() {
        var generator = SystemRandomNumberGenerator()
        for _ in 0..<200 {
            var small = SmallIDSet()
            var reference = Set<UInt64>()
            for _ in 0..<40 {
                let id = UInt64.random(in: 0...5, using: &generator)
                if Bool.random(using: &generator) {
                    #expect(small.insert(id) == reference.insert(id).inserted)
                } else {
                    #expect(small.remove(id) == (reference.remove(id) != nil))
                }
                #expect(small.count == reference.count)
                #expect(small.isEmpty == reference.isEmpty)
                for probe in UInt64(0)...5 { #expect(small.contains(probe) == reference.contains(probe)) }
            }
        }
    }

    @Test func theMapBehavesLikeADictionary() {
        var generator = SystemRandomNumberGenerator()
        for _ in 0..<200 {
            var small = SmallDeviceMap<Int>()
            var reference: [UInt64: Int] = [:]
            for _ in 0..<40 {
                let device = UInt64.random(in: 0...5, using: &generator)
                switch Int.random(in: 0..<3, using: &generator) {
                case 0:
                    let value = Int.random(in: 0...9, using: &generator)
                    small[device] = value
                    reference[device] = value
                case 1:
                    let removed = small.removeValue(forKey: device)
                    #expect(removed == reference.removeValue(forKey: device))
                default:
                    small[device] = nil
                    reference[device] = nil
                }
                #expect(small.count == reference.count)
                #expect(small.isEmpty == reference.isEmpty)
                #expect(small.maxValue() == reference.values.max())
                #expect(small.values.sorted() == reference.values.sorted())
                for probe in UInt64(0)...5 { #expect(small[probe] == reference[probe]) }
            }
        }
    }
}
