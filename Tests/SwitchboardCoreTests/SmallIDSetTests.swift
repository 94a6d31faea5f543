//===----------------------------------------------------------------------===//
//
// This source file is part of the Switchboard open source project
//
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//

import Testing

@testable import SwitchboardCore

/// `SmallIDSet` (a user's devices in `ActiveTimeTracker`) against `Set` over random operations.
struct SmallIDSetTests {
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
}
