//===----------------------------------------------------------------------===//
//
// This source file is part of the Switchboard open source project
//
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//

import Testing

@testable import SwitchboardWebSocket

/// `WebSocketConfiguration` is a value; connections made with one `SharedWebSocketConfiguration` read its fields.
struct WebSocketConfigurationTests {
    @Test func defaultsAndIndependentCopies() {
        let defaults = WebSocketConfiguration()
        #expect(defaults.maxFrameSize == 1 << 20 && defaults.maxMessageSize == 1 << 20)
        #expect(defaults.pingInterval == 30_000_000_000 && defaults.idleTimeout == 90_000_000_000)
        #expect(defaults.closeTimeout == 5_000_000_000 && defaults.minimumSizeToCompress == 32)
        #expect(defaults.compressionLevel == 6)
        var changed = defaults
        changed.maxFrameSize = 125
        changed.pingInterval = 1
        changed.compressionLevel = 1
        #expect(changed.maxFrameSize == 125 && changed.pingInterval == 1 && changed.compressionLevel == 1)
        #expect(changed.maxMessageSize == 1 << 20 && changed.idleTimeout == 90_000_000_000)
        #expect(defaults.maxFrameSize == 1 << 20 && defaults.pingInterval == 30_000_000_000)
        #expect(WebSocketConfiguration().compressionLevel == 6)
        let shared = SharedWebSocketConfiguration(changed)
        let connections = (0..<2).map { _ in
            WebSocketConnection(role: .server, configuration: shared, deflate: nil, now: 0)
        }
        for connection in connections {
            #expect(connection.configuration.maxFrameSize == 125 && connection.configuration.pingInterval == 1)
        }
        let own = WebSocketConnection(role: .client, configuration: changed, deflate: nil, now: 0)
        #expect(own.configuration.compressionLevel == 1)
    }

    /// A connection keeps its permessage-deflate parameters packed (`PackedDeflateParameters`) and gives them back as
    /// negotiated, every combination of flags and window sizes.
    @Test func deflateParametersRoundTrip() {
        #expect(
            WebSocketConnection(role: .server, configuration: WebSocketConfiguration(), deflate: nil, now: 0).deflate
                == nil)
        for serverBits in 8...15 {
            for clientBits in [8, 11, 15] {
                for flags in 0..<4 {
                    var p = PerMessageDeflateParameters()
                    p.serverMaxWindowBits = serverBits
                    p.clientMaxWindowBits = clientBits
                    p.serverNoContextTakeover = flags & 1 != 0
                    p.clientNoContextTakeover = flags & 2 != 0
                    let connection = WebSocketConnection(
                        role: .server, configuration: WebSocketConfiguration(), deflate: p, now: 0)
                    #expect(connection.deflate == p)
                    #expect(!connection.acceptsSharedFrames)
                }
            }
        }
    }
}
