//===----------------------------------------------------------------------===//
//
// This source file is part of the Switchboard open source project
//
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//

/// Result of `handle.check`: `{handle, available, reason (null or "invalid"/"reserved"/"taken")}`.
public struct HandleCheckResult: Codable, Sendable, Equatable {
    public var handle: String
    public var available: Bool
    public var reason: String?
    public init(handle: String, available: Bool, reason: String?) {
        self.handle = handle
        self.available = available
        self.reason = reason
    }
    enum CodingKeys: String, CodingKey { case handle, available, reason }
    public func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        try c.encode(handle, forKey: .handle)
        try c.encode(available, forKey: .available)
        try c.encode(reason, forKey: .reason)
    }
}
