//===----------------------------------------------------------------------===//
//
// This source file is part of the Switchboard open source project
//
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//

/// What both sides agreed on.
public struct PerMessageDeflateParameters: Equatable, Sendable {
    public var serverNoContextTakeover = false
    public var clientNoContextTakeover = false
    public var serverMaxWindowBits = 15
    public var clientMaxWindowBits = 15
    public init() {}

    /// The extension header value that states these parameters.
    public var headerValue: String {
        var parts = ["permessage-deflate"]
        if serverNoContextTakeover { parts.append("server_no_context_takeover") }
        if clientNoContextTakeover { parts.append("client_no_context_takeover") }
        if serverMaxWindowBits < 15 { parts.append("server_max_window_bits=\(serverMaxWindowBits)") }
        if clientMaxWindowBits < 15 { parts.append("client_max_window_bits=\(clientMaxWindowBits)") }
        return parts.joined(separator: "; ")
    }
}
