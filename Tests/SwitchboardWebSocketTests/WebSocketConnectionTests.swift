//===----------------------------------------------------------------------===//
//
// This source file is part of the Switchboard open source project
//
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//

import Testing

@testable import SwitchboardWebSocket

func masked(_ opcode: UInt8, _ payload: [UInt8], fin: Bool = true, rsv1: Bool = false) -> [UInt8] {
    var f = WebSocketFrameEncoder.encode(
        opcode: WebSocketOpcode(rawValue: opcode) ?? .binary, payload: payload, fin: fin, rsv1: rsv1,
        maskingKey: 0xA1B2_C3D4)
    f[0] = (f[0] & 0xF0) | opcode
    return f
}

/// Feeds bytes (in chunks) and records events.
final class Harness {
    let ws: WebSocketConnection
    var events: [String] = []
    var sent: [[UInt8]] = []
    var messages: [[UInt8]] = []
    var closedCode: UInt16? = nil
    init(
        deflate: PerMessageDeflateParameters? = nil, role: WebSocketRole = .server,
        configure: (inout WebSocketConfiguration) -> Void = { _ in }
    ) {
        var c = WebSocketConfiguration()
        c.maxFrameSize = 1000
        c.maxMessageSize = 2000
        c.pingInterval = 10
        c.idleTimeout = 30
        c.closeTimeout = 5
        configure(&c)
        ws = WebSocketConnection(role: role, configuration: c, deflate: deflate, now: 0)
    }
    func feed(_ bytes: [UInt8], chunk: Int = Int.max, now: UInt64 = 1) {
        var offset = 0
        while offset < bytes.count {
            let end = min(offset + chunk, bytes.count)
            bytes[offset..<end].withUnsafeBytes { ws.receive($0, now: now) { self.record($0) } }
            offset = end
        }
    }
    func record(_ e: WebSocketEvent) {
        switch e {
        case .text(let b): events.append("text"); messages.append(b)
        case .binary(let b): events.append("binary"); messages.append(b)
        case .send(let b): events.append("send"); sent.append(b)
        case .closeReceived(let code, _): events.append("closeReceived \(code.map(String.init) ?? "nil")")
        case .closed(let code): events.append("closed"); closedCode = code
        }
    }
    /// The close code in the last frame we sent.
    var sentCloseCode: UInt16? {
        guard let f = sent.last, f[0] & 0x0F == 8, f.count >= 4 else { return nil }
        if f[1] & 0x80 != 0 {  // masked (client role): key in bytes 2...5
            guard f.count >= 8 else { return nil }
            return UInt16(f[6] ^ f[2]) << 8 | UInt16(f[7] ^ f[3])
        }
        return UInt16(f[2]) << 8 | UInt16(f[3])
    }
}

@Suite struct WebSocketConnectionTests {
    @Test func textEchoAndFragmentsWithInterleavedPing() {
        let h = Harness()
        h.feed(masked(1, Array("hi".utf8)) + masked(2, [1], fin: false) + masked(9, [9]) + masked(0, [2]), chunk: 3)
        #expect(h.events == ["text", "send", "binary"])
        #expect(h.messages == [Array("hi".utf8), [1, 2]])
        #expect(h.sent[0] == [0x8A, 0x01, 0x09])  // pong, unmasked
    }

    @Test func protocolErrors() {
        func code(_ bytes: [UInt8]) -> UInt16? {
            let h = Harness()
            h.feed(bytes)
            return h.sentCloseCode
        }
        #expect(code([0x81, 0x02, 0x68, 0x69]) == 1002)  // unmasked
        #expect(code(masked(3, [])) == 1002)  // reserved opcode
        #expect(code(masked(1, [0x61], rsv1: true)) == 1002)  // RSV1 without deflate
        #expect(code(masked(9, [UInt8](repeating: 0, count: 126))) == 1002)  // control too long
        #expect(code(masked(9, [], fin: false)) == 1002)  // fragmented control
        #expect(code(masked(0, [1])) == 1002)  // continuation without a message
        #expect(code(masked(1, [1], fin: false) + masked(1, [1])) == 1002)  // interleaved
        #expect(code(masked(8, [0x03])) == 1002)  // one-byte close
        for bad: UInt16 in [999, 1004, 1005, 1006, 1015, 2999, 5000] {
            #expect(code(masked(8, [UInt8(bad >> 8), UInt8(bad & 0xFF)])) == 1002, "\(bad)")
        }
        for good: UInt16 in [1000, 1001, 3000, 4999] {
            #expect(code(masked(8, [UInt8(good >> 8), UInt8(good & 0xFF)])) == good, "\(good)")
        }
        #expect(code(masked(8, [0x03, 0xE8, 0xC0, 0xAF])) == 1007)  // invalid UTF-8 reason
        #expect(code(masked(2, [UInt8](repeating: 0, count: 1001))) == 1009)  // frame too big
        #expect(
            code(
                masked(2, [UInt8](repeating: 0, count: 900), fin: false)
                    + masked(0, [UInt8](repeating: 0, count: 900), fin: false)
                    + masked(0, [UInt8](repeating: 0, count: 900))) == 1009)
    }

    @Test func invalidUTF8FailsMidFrame() {
        let h = Harness()
        let frame = masked(1, [0x61, 0x62, 0xED, 0xA0, 0x80] + [UInt8](repeating: 0x61, count: 100))
        // Feed only the header and the first bad bytes: the close comes before the frame is complete.
        h.feed(Array(frame[0..<(frame.count - 100)]), chunk: 1)
        #expect(h.sentCloseCode == 1007)
        #expect(h.ws.state == .closed)
    }

    @Test func compressedMessagesAndBomb() throws {
        let h = Harness(deflate: PerMessageDeflateParameters())
        let compressor = try MessageCompressor(windowBits: 15, noContextTakeover: false)
        let payload = Array(String(repeating: "switchboard ", count: 50).utf8)
        let c = try payload.withUnsafeBytes { try compressor.compress($0) }
        h.feed(masked(1, c, rsv1: true))
        #expect(h.messages == [payload])
        let out = h.ws.makeMessage(.text, payload: payload)!
        #expect(out[0] == 0xC1 && out.count < payload.count)  // RSV1 + text, compressed
        let bombCompressor = try MessageCompressor(windowBits: 15, noContextTakeover: true, level: 9)
        let bomb = try [UInt8](repeating: 0, count: 100_000).withUnsafeBytes { try bombCompressor.compress($0) }
        let b = Harness(deflate: PerMessageDeflateParameters())
        b.feed(masked(2, bomb, rsv1: true))
        #expect(b.sentCloseCode == 1009)
    }

    @Test func anUncompressedSharedFrameKeepsTheDeflateContextInStep() throws {
        // A fan-out event written as a prebuilt uncompressed frame between two compressed messages of a
        // context-takeover connection: the receiver passes it by its inflater (RSV1 clear), and the next compressed
        // message, which refers back to the first, still inflates (RFC 7692: uncompressed messages touch neither
        // side's window).
        let h = Harness(deflate: PerMessageDeflateParameters())
        #expect(h.ws.acceptsUncompressedSharedFrames && !h.ws.acceptsSharedFrames)
        let payload = Array(String(repeating: "switchboard ", count: 50).utf8)
        func body(_ frame: [UInt8]) -> [UInt8] {
            #expect(frame[1] & 0x80 == 0 && frame[1] & 0x7F < 126)  // unmasked, short
            return Array(frame[2...])
        }
        let first = try #require(h.ws.makeMessage(.text, payload: payload))
        let shared = WebSocketFrameEncoder.encode(opcode: .text, payload: Array("{\"ev\":\"post.new\"}".utf8))
        let second = try #require(h.ws.makeMessage(.text, payload: payload))
        #expect(first[0] == 0xC1 && shared[0] == 0x81 && second[0] == 0xC1)
        #expect(second.count < first.count)  // the second refers back to the first
        let inflater = try MessageDecompressor(noContextTakeover: false)
        #expect(try inflater.decompress(body(first), limit: 10_000) == payload)
        #expect(String(decoding: body(shared), as: UTF8.self) == "{\"ev\":\"post.new\"}")
        #expect(try inflater.decompress(body(second), limit: 10_000) == payload)
    }

    @Test func closeHandshakeBothWays() {
        let h = Harness()
        h.feed(masked(8, [0x03, 0xE8]))
        #expect(h.events == ["closeReceived 1000", "send", "closed"])
        #expect(h.sentCloseCode == 1000)
        let ours = Harness()
        let frame = ours.ws.close(code: 1001, now: 5)
        #expect(frame == [0x88, 0x02, 0x03, 0xE9])
        #expect(ours.ws.close(code: 1001, now: 5) == nil)
        ours.feed(masked(1, Array("ignored".utf8)) + masked(8, [0x03, 0xE9]))
        #expect(ours.events == ["closeReceived 1001", "closed"])
        #expect(ours.messages.isEmpty)
    }

    @Test func timersWithAManualClock() {
        let h = Harness()
        #expect(h.ws.tick(now: 9) == .none)
        guard case .sendPing(let ping) = h.ws.tick(now: 10) else { Issue.record("no ping"); return }
        #expect(ping == [0x89, 0x00])
        #expect(h.ws.tick(now: 15) == .none)  // one ping per interval
        guard case .sendClose(let close) = h.ws.tick(now: 30) else { Issue.record("no idle close"); return }
        #expect(close == [0x88, 0x0E, 0x03, 0xE9] + Array("idle timeout".utf8))
        #expect(h.ws.tick(now: 34) == .none)
        #expect(h.ws.tick(now: 35) == .abort)
        // Input resets the idle clock.
        let busy = Harness()
        busy.feed(masked(1, Array("x".utf8)), now: 25)
        #expect(busy.ws.tick(now: 30) == .none)
    }

    @Test func clientRoleMasksAndExpectsUnmasked() {
        let client = Harness(role: .client)
        let frame = client.ws.makeMessage(.text, payload: Array("hey".utf8))!
        #expect(frame[1] & 0x80 != 0 && frame.count == 2 + 4 + 3)
        client.feed([0x81, 0x02, 0x68, 0x69])
        #expect(client.messages == [Array("hi".utf8)])
        client.feed(masked(1, [0x61]))
        #expect(client.sentCloseCode == 1002)
    }
}
