//===----------------------------------------------------------------------===//
//
// This source file is part of the Switchboard open source project
//
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//

/// Why a handshake was refused; `rawValue` is a metrics label.
public enum HandshakeFailureReason: String, Sendable, CaseIterable {
    case notGet = "not_get"
    case missingUpgrade = "missing_upgrade"
    case missingConnectionUpgrade = "missing_connection_upgrade"
    case unsupportedVersion = "unsupported_version"
    case badKey = "bad_key"
    case originNotAllowed = "origin_not_allowed"
    case noAcceptableSubprotocol = "no_acceptable_subprotocol"
    case httpVersion = "http_version"
}
