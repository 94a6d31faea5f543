//===----------------------------------------------------------------------===//
//
// This source file is part of the Switchboard open source project
//
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//

/// `{call_id}`.
public struct CallIDParameters: Codable, Sendable, Equatable {
    public var callId: String
    public init(callId: String) { self.callId = callId }
}
