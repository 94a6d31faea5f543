//===----------------------------------------------------------------------===//
//
// This source file is part of the Switchboard open source project
//
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//

/// A set of device ids that holds one inline: most users have one device, and then it allocates nothing.
struct SmallIDSet: Sendable {
    private var members = SmallDeviceMap<Bool>()

    var isEmpty: Bool { members.isEmpty }
    var count: Int { members.count }

    func contains(_ id: UInt64) -> Bool { members[id] != nil }

    /// Adds `id`; false if it was there.
    @discardableResult
    mutating func insert(_ id: UInt64) -> Bool {
        if contains(id) { return false }
        members[id] = true
        return true
    }

    /// Removes `id`; false if it was not there.
    @discardableResult
    mutating func remove(_ id: UInt64) -> Bool { members.removeValue(forKey: id) != nil }
}
