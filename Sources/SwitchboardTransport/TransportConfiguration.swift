//===----------------------------------------------------------------------===//
//
// This source file is part of the Switchboard open source project
//
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//

/// Listener settings.
public struct TransportConfiguration: Sendable {
    public var host: String = "0.0.0.0"
    /// 0 picks an ephemeral port.
    public var port: Int = 8080
    public var backlog: Int32 = 1024
    /// Most open connections; further ones are accepted and closed at once.
    public var maxConnections: Int = 100_000
    /// Share the port with other processes (`SO_REUSEPORT`).
    public var reusePort: Bool = false
    public init() {}
}
