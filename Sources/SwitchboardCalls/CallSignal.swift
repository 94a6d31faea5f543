//===----------------------------------------------------------------------===//
//
// This source file is part of the Switchboard open source project
//
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//

/// One signalling message.
public struct CallSignal: Sendable, Equatable, CustomStringConvertible {
    /// What it is.
    public let kind: CallSignalKind
    /// The SDP, candidate or small payload, passed through untouched.
    public let payload: String

    /// Creates a signal.
    public init(kind: CallSignalKind, payload: String) {
        self.kind = kind
        self.payload = payload
    }

    /// Redacted: the payload (SDP, candidate addresses) is not printed.
    public var description: String { "CallSignal(\(self.kind.rawValue), \(self.payload.utf8.count) bytes)" }
}
