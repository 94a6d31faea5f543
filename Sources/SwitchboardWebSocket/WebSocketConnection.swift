//===----------------------------------------------------------------------===//
//
// This source file is part of the Switchboard open source project
//
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//

/// The RFC 6455 protocol of one connection after the handshake: frame parsing, reassembly, UTF-8,
/// permessage-deflate, control frames, the closing handshake and keepalive, with an injected clock.
///
/// Not thread-safe: the owner confines it to one queue. Idle connections hold no buffers.
public final class WebSocketConnection {
    public enum State: Equatable {
        case open
        /// We sent a close frame at this time and wait for the peer's.
        case closeSent(at: UInt64)
        case closed
    }

    // Stored properties are in an order that leaves little padding (an idle connection is mostly this object: 128
    // bytes, the small fields packed together ahead of the 8-byte ones).
    private let shared: SharedWebSocketConfiguration
    // Unchecked exclusivity: read for every shared frame sent (`acceptsSharedFrames`); each access is a plain load or
    // store, none overlaps another, and the object is used on one queue (its connection's).
    @exclusivity(unchecked) public private(set) var state: State = .open
    public let role: WebSocketRole

    // Frame being read.
    private var inFrame = false
    private var frameOpcode: WebSocketOpcode = .continuation
    private var frameFin = false
    private var frameMasked = false
    private var frameMask: (UInt8, UInt8, UInt8, UInt8) = (0, 0, 0, 0)
    // Message being reassembled.
    private var messageOpcode: WebSocketOpcode? = nil
    private var messageCompressed = false
    private var validator = UTF8Validator()
    /// The permessage-deflate parameters in 4 bytes (`deflate`; the struct with its two Ints is 25).
    private let packedDeflate: PackedDeflateParameters
    private var header: [UInt8] = []
    private var frameRemaining = 0
    private var frameOffset = 0
    private var message: [UInt8] = []
    private var control: [UInt8] = []
    // Keepalive.
    private var lastReceived: UInt64
    private var lastPing: UInt64 = 0
    // Compression, created on first use.
    private var compressor: MessageCompressor? = nil
    private var decompressor: MessageDecompressor? = nil

    /// What permessage-deflate the handshake agreed on (nil: none).
    public var deflate: PerMessageDeflateParameters? { packedDeflate.parameters }

    /// A connection with its own copy of `configuration`.
    public convenience init(
        role: WebSocketRole, configuration: WebSocketConfiguration, deflate: PerMessageDeflateParameters?, now: UInt64
    ) {
        self.init(role: role, configuration: SharedWebSocketConfiguration(configuration), deflate: deflate, now: now)
    }

    /// A connection that shares `configuration` with others.
    public init(
        role: WebSocketRole, configuration: SharedWebSocketConfiguration, deflate: PerMessageDeflateParameters?,
        now: UInt64
    ) {
        self.role = role
        self.shared = configuration
        packedDeflate = PackedDeflateParameters(deflate)
        self.lastReceived = now
    }

    public var configuration: WebSocketConfiguration { shared.value }

    /// Whether a message or frame is partly received (the connection is not idle).
    public var isMidMessage: Bool { inFrame || messageOpcode != nil || !header.isEmpty }

    /// Feeds received bytes; events are reported through `emit` in order.
    public func receive(_ bytes: UnsafeRawBufferPointer, now: UInt64, _ emit: (WebSocketEvent) -> Void) {
        guard state != .closed, let base = bytes.baseAddress else { return }
        lastReceived = now
        let count = bytes.count
        var p = 0
        while p < count && state != .closed {
            if !inFrame {
                // Header: parse from the input directly when it is all there, else accumulate.
                let headerBytes: UnsafeRawBufferPointer
                var needed = 2
                if header.isEmpty {
                    let available = count - p
                    if available >= 2 {
                        needed = Self.headerLength(base.load(fromByteOffset: p + 1, as: UInt8.self))
                    }
                    if available >= needed && available >= 2 {
                        headerBytes = UnsafeRawBufferPointer(start: base + p, count: needed)
                        p += needed
                        if !startFrame(headerBytes, now: now, emit) { return }
                        continue
                    }
                    header.append(contentsOf: UnsafeRawBufferPointer(start: base + p, count: available))
                    p = count
                    continue
                }
                if header.count < 2 {
                    header.append(base.load(fromByteOffset: p, as: UInt8.self))
                    p += 1
                    continue
                }
                needed = Self.headerLength(header[1])
                let take = min(needed - header.count, count - p)
                header.append(contentsOf: UnsafeRawBufferPointer(start: base + p, count: take))
                p += take
                if header.count == needed {
                    let h = header
                    header = []
                    let ok = h.withUnsafeBytes { startFrame($0, now: now, emit) }
                    if !ok { return }
                }
                continue
            }
            let take = min(frameRemaining, count - p)
            if take > 0 {
                let chunk = UnsafeRawBufferPointer(start: base + p, count: take)
                p += take
                if !payload(chunk, emit) { return }
            }
            if frameRemaining == 0 { finishFrame(now: now, emit) }
        }
    }

    @inline(__always)
    private static func headerLength(_ second: UInt8) -> Int {
        let len = second & 0x7F
        return (len < 126 ? 2 : len == 126 ? 4 : 10) + (second & 0x80 != 0 ? 4 : 0)
    }

    private func startFrame(_ h: UnsafeRawBufferPointer, now: UInt64, _ emit: (WebSocketEvent) -> Void) -> Bool {
        let b0 = h[0]
        let b1 = h[1]
        let fin = b0 & 0x80 != 0
        let rsv1 = b0 & 0x40 != 0
        guard b0 & 0x30 == 0 else { return fail(WebSocketCloseCode.protocolError, "reserved bits set", emit) }
        guard let opcode = WebSocketOpcode(rawValue: b0 & 0x0F) else {
            return fail(WebSocketCloseCode.protocolError, "reserved opcode", emit)
        }
        let masked = b1 & 0x80 != 0
        guard masked == (role == .server) else {
            return fail(WebSocketCloseCode.protocolError, role == .server ? "unmasked frame" : "masked frame", emit)
        }
        var length = UInt64(b1 & 0x7F)
        var i = 2
        if length == 126 {
            length = UInt64(h[2]) << 8 | UInt64(h[3])
            i = 4
        } else if length == 127 {
            length = 0
            for k in 0..<8 { length = length << 8 | UInt64(h[2 + k]) }
            i = 10
            guard length >> 63 == 0 else { return fail(WebSocketCloseCode.protocolError, "bad length", emit) }
        }
        if masked { frameMask = (h[i], h[i + 1], h[i + 2], h[i + 3]) }
        if opcode.isControl {
            guard fin else { return fail(WebSocketCloseCode.protocolError, "fragmented control frame", emit) }
            guard length <= 125 else { return fail(WebSocketCloseCode.protocolError, "control frame too long", emit) }
            guard !rsv1 else { return fail(WebSocketCloseCode.protocolError, "RSV1 on a control frame", emit) }
        } else {
            if opcode == .continuation {
                guard messageOpcode != nil else {
                    return fail(WebSocketCloseCode.protocolError, "continuation without a message", emit)
                }
                guard !rsv1 else { return fail(WebSocketCloseCode.protocolError, "RSV1 on a continuation", emit) }
            } else {
                guard messageOpcode == nil else {
                    return fail(WebSocketCloseCode.protocolError, "message interleaved", emit)
                }
                if rsv1 {
                    guard packedDeflate.isPresent else {
                        return fail(WebSocketCloseCode.protocolError, "RSV1 without deflate", emit)
                    }
                }
                messageOpcode = opcode
                messageCompressed = rsv1
                validator.reset()
            }
            guard length <= UInt64(configuration.maxFrameSize) else {
                return fail(WebSocketCloseCode.messageTooBig, "frame too big", emit)
            }
            guard message.count + Int(length) <= configuration.maxMessageSize else {
                return fail(WebSocketCloseCode.messageTooBig, "message too big", emit)
            }
        }
        inFrame = true
        frameOpcode = opcode
        frameFin = fin
        frameMasked = masked
        frameRemaining = Int(length)
        frameOffset = 0
        if frameRemaining == 0 { finishFrame(now: now, emit) }
        return true
    }

    private func payload(_ chunk: UnsafeRawBufferPointer, _ emit: (WebSocketEvent) -> Void) -> Bool {
        let n = chunk.count
        frameRemaining -= n
        if frameOpcode.isControl {
            let start = control.count
            control.append(contentsOf: chunk)
            if frameMasked {
                control.withUnsafeMutableBytes {
                    applyMask(
                        UnsafeMutableRawBufferPointer(rebasing: $0[start...]), key: frameMask, offset: frameOffset)
                }
            }
            frameOffset += n
            return true
        }
        let start = message.count
        if start == 0 && message.capacity < n + frameRemaining {
            message.reserveCapacity(n + frameRemaining)
        }
        message.append(contentsOf: chunk)
        let masked = frameMasked
        let key = frameMask
        let offset = frameOffset
        let checkText = messageOpcode == .text && !messageCompressed
        var valid = true
        message.withUnsafeMutableBytes { all in
            let region = UnsafeMutableRawBufferPointer(rebasing: all[start...])
            if masked { applyMask(region, key: key, offset: offset) }
            if checkText { valid = validator.validate(UnsafeRawBufferPointer(region)) }
        }
        frameOffset += n
        if !valid { return fail(WebSocketCloseCode.invalidPayload, "invalid UTF-8", emit) }
        return true
    }

    private func finishFrame(now: UInt64, _ emit: (WebSocketEvent) -> Void) {
        inFrame = false
        switch frameOpcode {
        case .close:
            let payload = control
            control = []
            handleClose(payload, emit)
        case .ping:
            let payload = control
            control = []
            if state == .open { emit(.send(encode(.pong, payload))) }
        case .pong:
            control = []
        case .text, .binary, .continuation:
            guard frameFin, let opcode = messageOpcode else { return }
            messageOpcode = nil
            var data = message
            message = []
            if state != .open { return }  // after our close, data is ignored
            if messageCompressed {
                do {
                    if decompressor == nil {
                        decompressor = try MessageDecompressor(
                            noContextTakeover: deflate?.clientNoContextTakeover ?? false)
                    }
                    data = try decompressor!.decompress(data, limit: configuration.maxMessageSize)
                } catch .tooLarge {
                    _ = fail(WebSocketCloseCode.messageTooBig, "message too big", emit)
                    return
                } catch {
                    _ = fail(WebSocketCloseCode.invalidPayload, "invalid compressed data", emit)
                    return
                }
                if opcode == .text && !UTF8Validator.isValid(data) {
                    _ = fail(WebSocketCloseCode.invalidPayload, "invalid UTF-8", emit)
                    return
                }
            } else if opcode == .text && !validator.isComplete {
                _ = fail(WebSocketCloseCode.invalidPayload, "invalid UTF-8", emit)
                return
            }
            emit(opcode == .text ? .text(data) : .binary(data))
        }
    }

    private func handleClose(_ payload: [UInt8], _ emit: (WebSocketEvent) -> Void) {
        var code: UInt16? = nil
        var reason = ""
        if payload.count == 1 {
            _ = fail(WebSocketCloseCode.protocolError, "close payload of one byte", emit)
            return
        }
        if payload.count >= 2 {
            let c = UInt16(payload[0]) << 8 | UInt16(payload[1])
            guard WebSocketCloseCode.isValidReceived(c) else {
                _ = fail(WebSocketCloseCode.protocolError, "invalid close code", emit)
                return
            }
            let reasonBytes = Array(payload[2...])
            guard UTF8Validator.isValid(reasonBytes) else {
                _ = fail(WebSocketCloseCode.invalidPayload, "invalid UTF-8 in close reason", emit)
                return
            }
            code = c
            reason = String(decoding: reasonBytes, as: UTF8.self)
        }
        emit(.closeReceived(code: code, reason: reason))
        if state == .open {
            emit(.send(closeFrame(code: code ?? WebSocketCloseCode.normal, reason: "")))
        }
        state = .closed
        message = []
        emit(.closed(code: code ?? 1005))
    }

    /// Sends our close with `code` after a protocol violation and finishes.
    private func fail(_ code: UInt16, _ reason: String, _ emit: (WebSocketEvent) -> Void) -> Bool {
        if case .open = state { emit(.send(closeFrame(code: code, reason: reason))) }
        state = .closed
        message = []
        control = []
        header = []
        inFrame = false
        emit(.closed(code: code))
        return false
    }

    private func encode(_ opcode: WebSocketOpcode, _ payload: [UInt8], rsv1: Bool = false) -> [UInt8] {
        WebSocketFrameEncoder.encode(opcode: opcode, payload: payload, rsv1: rsv1, maskingKey: maskKey())
    }

    private func maskKey() -> UInt32? { role == .client ? UInt32.random(in: 0...UInt32.max) : nil }

    private func closeFrame(code: UInt16, reason: String) -> [UInt8] {
        WebSocketFrameEncoder.closeFrame(code: code, reason: reason, maskingKey: maskKey())
    }

    /// The frame for one message (compressed when negotiated and worth it), or nil after close.
    public func makeMessage(_ opcode: WebSocketOpcode, payload: UnsafeRawBufferPointer) -> [UInt8]? {
        guard state == .open else { return nil }
        if let deflate, payload.count >= configuration.minimumSizeToCompress {
            do {
                if compressor == nil {
                    compressor = try MessageCompressor(
                        windowBits: deflate.serverMaxWindowBits, noContextTakeover: deflate.serverNoContextTakeover,
                        level: configuration.compressionLevel)
                }
                let compressed = try compressor!.compress(payload)
                return WebSocketFrameEncoder.encode(
                    opcode: opcode, payload: compressed, rsv1: true, maskingKey: maskKey())
            } catch {
                // Fall through to an uncompressed frame: always valid.
            }
        }
        return WebSocketFrameEncoder.encode(opcode: opcode, payload: payload, maskingKey: maskKey())
    }

    /// The frame for one message.
    public func makeMessage(_ opcode: WebSocketOpcode, payload: [UInt8]) -> [UInt8]? {
        payload.withUnsafeBytes { makeMessage(opcode, payload: $0) }
    }

    /// Whether a prebuilt uncompressed server frame may be sent as is (shared fan-out frames).
    public var acceptsSharedFrames: Bool { role == .server && !packedDeflate.isPresent && state == .open }

    /// Whether a prebuilt uncompressed server frame may be sent as is even when permessage-deflate is in use:
    /// RFC 7692 lets an endpoint leave any message uncompressed (RSV1 clear), and such a message touches neither
    /// side's LZ77 window, so the connection's compression context stays in step. Used for events encoded once for
    /// thousands of connections (live pages), where compressing per connection costs more than the bytes saved.
    public var acceptsUncompressedSharedFrames: Bool { role == .server && state == .open }

    /// Starts the closing handshake: our close frame, or nil when already closing.
    public func close(code: UInt16, reason: String = "", now: UInt64) -> [UInt8]? {
        guard state == .open else { return nil }
        state = .closeSent(at: now)
        message = []
        return closeFrame(code: code, reason: reason)
    }

    /// Keepalive, idle and close timeouts.
    public func tick(now: UInt64) -> WebSocketTickAction {
        switch state {
        case .closed:
            return .none
        case .closeSent(let at):
            return now &- at >= configuration.closeTimeout ? .abort : .none
        case .open:
            let silence = now &- lastReceived
            if silence >= configuration.idleTimeout {
                state = .closeSent(at: now)
                return .sendClose(closeFrame(code: WebSocketCloseCode.goingAway, reason: "idle timeout"))
            }
            if silence >= configuration.pingInterval && now &- lastPing >= configuration.pingInterval {
                lastPing = now
                return .sendPing(encode(.ping, []))
            }
            return .none
        }
    }
}
