//===----------------------------------------------------------------------===//
//
// This source file is part of the Switchboard open source project
//
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//

/// The WebSocket close codes the server sends (docs/protocol.md).
public enum ProtocolCloseCode: UInt16, Sendable, CaseIterable {
    /// Normal closure: the reply to the client's close, or after `logout`.
    case normal = 1000
    /// Going away: server shutdown or idle timeout.
    case goingAway = 1001
    /// WebSocket protocol error.
    case protocolError = 1002
    /// Invalid UTF-8 in a text message or close reason, or undecodable compressed data.
    case invalidPayload = 1007
    /// Policy violation: a slow consumer, when the backpressure policy is `close-1008`.
    case policyViolation = 1008
    /// A frame or message larger than the limits.
    case messageTooBig = 1009
    /// Internal server error.
    case internalError = 1011
    /// Try again later: the client did not read fast enough (outbound limit).
    case tryAgainLater = 1013
    /// The connection's session was revoked (after a `session.revoked` event).
    case sessionRevoked = 4001
    /// The connection did not authenticate in time (default 10 s).
    case authenticationTimeout = 4002
    /// Backpressure: the client is a slow consumer (application-level variant of 1013).
    case slowConsumer = 4003
}
