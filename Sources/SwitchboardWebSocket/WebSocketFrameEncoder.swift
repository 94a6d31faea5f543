//===----------------------------------------------------------------------===//
//
// This source file is part of the Switchboard open source project
//
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//

/// Encodes complete frames (header and payload in one array, so one encoded frame can be shared).
public enum WebSocketFrameEncoder {
    /// Bytes of the header for a payload of `count` bytes.
    @inlinable
    public static func headerSize(payloadCount count: Int, masked: Bool) -> Int {
        (count < 126 ? 2 : count <= 0xFFFF ? 4 : 10) + (masked ? 4 : 0)
    }

    /// A complete frame.
    public static func encode(
        opcode: WebSocketOpcode,
        payload: UnsafeRawBufferPointer,
        fin: Bool = true,
        rsv1: Bool = false,
        maskingKey: UInt32? = nil
    ) -> [UInt8] {
        let count = payload.count
        let headerCount = headerSize(payloadCount: count, masked: maskingKey != nil)
        return [UInt8](unsafeUninitializedCapacity: headerCount + count) { buffer, initialized in
            var i = 0
            buffer[0] = (fin ? 0x80 : 0) | (rsv1 ? 0x40 : 0) | opcode.rawValue
            let maskBit: UInt8 = maskingKey != nil ? 0x80 : 0
            if count < 126 {
                buffer[1] = maskBit | UInt8(count)
                i = 2
            } else if count <= 0xFFFF {
                buffer[1] = maskBit | 126
                buffer[2] = UInt8(count >> 8)
                buffer[3] = UInt8(count & 0xFF)
                i = 4
            } else {
                buffer[1] = maskBit | 127
                for k in 0..<8 { buffer[2 + k] = UInt8((UInt64(count) >> (56 - 8 * UInt64(k))) & 0xFF) }
                i = 10
            }
            var keyBytes: (UInt8, UInt8, UInt8, UInt8) = (0, 0, 0, 0)
            if let key = maskingKey {
                keyBytes = (UInt8(key >> 24), UInt8((key >> 16) & 0xFF), UInt8((key >> 8) & 0xFF), UInt8(key & 0xFF))
                buffer[i] = keyBytes.0
                buffer[i + 1] = keyBytes.1
                buffer[i + 2] = keyBytes.2
                buffer[i + 3] = keyBytes.3
                i += 4
            }
            if count > 0, let src = payload.baseAddress {
                let dst = UnsafeMutableRawBufferPointer(
                    rebasing: UnsafeMutableRawBufferPointer(buffer)[i..<(i + count)])
                dst.copyMemory(from: UnsafeRawBufferPointer(start: src, count: count))
                if maskingKey != nil { applyMask(dst, key: keyBytes, offset: 0) }
            }
            initialized = headerCount + count
        }
    }

    /// A complete frame.
    public static func encode(
        opcode: WebSocketOpcode,
        payload: [UInt8],
        fin: Bool = true,
        rsv1: Bool = false,
        maskingKey: UInt32? = nil
    ) -> [UInt8] {
        payload.withUnsafeBytes { encode(opcode: opcode, payload: $0, fin: fin, rsv1: rsv1, maskingKey: maskingKey) }
    }

    /// A close frame: code and a reason cut to fit 123 bytes on a character boundary.
    public static func closeFrame(code: UInt16?, reason: String = "", maskingKey: UInt32? = nil) -> [UInt8] {
        var payload: [UInt8] = []
        if let code {
            payload = [UInt8(code >> 8), UInt8(code & 0xFF)]
            var reasonBytes = Array(reason.utf8)
            if reasonBytes.count > 123 {
                var cut = 123
                while cut > 0 && reasonBytes[cut] & 0xC0 == 0x80 { cut -= 1 }
                reasonBytes = Array(reasonBytes[0..<cut])
            }
            payload += reasonBytes
        }
        return encode(opcode: .close, payload: payload, maskingKey: maskingKey)
    }
}

/// XORs `buffer` with the 4-byte masking key, starting at key position `offset % 4`; 8 bytes at a time.
@inline(__always)
func applyMask(_ buffer: UnsafeMutableRawBufferPointer, key: (UInt8, UInt8, UInt8, UInt8), offset: Int) {
    guard let base = buffer.baseAddress, buffer.count > 0 else { return }
    let k = [key.0, key.1, key.2, key.3]
    var rotated: UInt64 = 0
    for j in 0..<8 { rotated |= UInt64(k[(offset + j) & 3]) << (8 * UInt64(j)) }
    let mask = rotated.littleEndian
    let count = buffer.count
    var i = 0
    while i + 8 <= count {
        let word = base.loadUnaligned(fromByteOffset: i, as: UInt64.self)
        base.storeBytes(of: word ^ mask, toByteOffset: i, as: UInt64.self)
        i += 8
    }
    while i < count {
        let b = base.load(fromByteOffset: i, as: UInt8.self)
        base.storeBytes(of: b ^ k[(offset + i) & 3], toByteOffset: i, as: UInt8.self)
        i += 1
    }
}
