//===----------------------------------------------------------------------===//
//
// This source file is part of the Switchboard open source project
//
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//

/// TLS failures; descriptions carry OpenSSL's error string, never key material.
public enum TLSError: Error, CustomStringConvertible, Sendable {
    /// The context could not be built (bad certificate or key path, mismatch).
    case configuration(String)
    /// The handshake or record layer failed.
    case protocolFailure(String)

    public var description: String {
        switch self {
        case .configuration(let s): return "TLS configuration: \(s)"
        case .protocolFailure(let s): return "TLS: \(s)"
        }
    }
}
