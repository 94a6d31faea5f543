//===----------------------------------------------------------------------===//
//
// This source file is part of the Switchboard open source project
//
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//

/// `{handle}`.
public struct HandleParameters: Codable, Sendable, Equatable {
    public var handle: String
    public init(handle: String) { self.handle = handle }
}
