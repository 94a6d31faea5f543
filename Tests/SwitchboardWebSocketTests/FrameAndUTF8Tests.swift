//===----------------------------------------------------------------------===//
//
// This source file is part of the Switchboard open source project
//
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//

import Testing

@testable import SwitchboardWebSocket

@Suite struct FrameAndUTF8Tests {
    @Test func rfc6455Examples() {
        #expect(
            WebSocketFrameEncoder.encode(opcode: .text, payload: Array("Hello".utf8)) == [
                0x81, 0x05, 0x48, 0x65, 0x6c, 0x6c, 0x6f,
            ])
        #expect(
            WebSocketFrameEncoder.encode(opcode: .text, payload: Array("Hello".utf8), maskingKey: 0x37fa_213d)
                == [0x81, 0x85, 0x37, 0xfa, 0x21, 0x3d, 0x7f, 0x9f, 0x4d, 0x51, 0x58])
        let f256 = WebSocketFrameEncoder.encode(opcode: .binary, payload: [UInt8](repeating: 0, count: 256))
        #expect(Array(f256[0..<4]) == [0x82, 0x7E, 0x01, 0x00] && f256.count == 260)
        let f64k = WebSocketFrameEncoder.encode(opcode: .binary, payload: [UInt8](repeating: 0, count: 65536))
        #expect(Array(f64k[0..<10]) == [0x82, 0x7F, 0, 0, 0, 0, 0, 1, 0, 0] && f64k.count == 65546)
    }

    @Test func maskIsItsOwnInverseAtAnyOffset() {
        let original = (0..<1000).map { UInt8(truncatingIfNeeded: $0 * 7) }
        for offset in 0..<4 {
            var data = original
            data.withUnsafeMutableBytes { applyMask($0, key: (1, 2, 3, 4), offset: offset) }
            #expect(data != original)
            // Byte-wise reference.
            let key: [UInt8] = [1, 2, 3, 4]
            #expect(data == original.enumerated().map { $0.element ^ key[($0.offset + offset) & 3] })
        }
    }

    @Test func utf8() {
        #expect(UTF8Validator.isValid(Array("κόσμε – 世界 🎉".utf8)))
        #expect(!UTF8Validator.isValid([0xC0, 0xAF]))  // overlong
        #expect(!UTF8Validator.isValid([0xE0, 0x80, 0xAF]))  // overlong
        #expect(!UTF8Validator.isValid([0xED, 0xA0, 0x80]))  // surrogate
        #expect(!UTF8Validator.isValid([0xF4, 0x90, 0x80, 0x80]))  // > U+10FFFF
        #expect(!UTF8Validator.isValid([0xE2, 0x82]))  // truncated
        // Fails at the exact bad byte when fed one byte at a time.
        var v = UTF8Validator()
        let bytes: [UInt8] = [
            0x61, 0xCE, 0xBA, 0xE1, 0xBD, 0xB9, 0xCF, 0x83, 0xCE, 0xBC, 0xCE, 0xB5, 0xED, 0xA0, 0x80, 0x65,
        ]
        var failedAt: Int? = nil
        for (i, b) in bytes.enumerated() where failedAt == nil {
            if ![b].withUnsafeBytes({ v.validate($0) }) { failedAt = i }
        }
        #expect(failedAt == 13)
    }

    @Test func rfc7692HelloAndRoundTrips() throws {
        let compressor = try MessageCompressor(windowBits: 15, noContextTakeover: false)
        let hello = try Array("Hello".utf8).withUnsafeBytes { try compressor.compress($0) }
        #expect(hello == [0xf2, 0x48, 0xcd, 0xc9, 0xc9, 0x07, 0x00])
        let decompressor = try MessageDecompressor(noContextTakeover: false)
        #expect(
            try decompressor.decompress([0xf2, 0x48, 0xcd, 0xc9, 0xc9, 0x07, 0x00], limit: 100) == Array("Hello".utf8))
        // With context takeover the second "Hello" refers back to the first: shorter.
        let again = try Array("Hello".utf8).withUnsafeBytes { try compressor.compress($0) }
        #expect(again.count < hello.count)
        #expect(try decompressor.decompress(again, limit: 100) == Array("Hello".utf8))
        // Without takeover every message stands alone.
        let fresh = try MessageCompressor(windowBits: 9, noContextTakeover: true)
        for _ in 0..<3 {
            let c = try Array("Hello".utf8).withUnsafeBytes { try fresh.compress($0) }
            #expect(try MessageDecompressor(noContextTakeover: true).decompress(c, limit: 100) == Array("Hello".utf8))
        }
    }

    @Test func decompressionBombHitsTheLimit() throws {
        let compressor = try MessageCompressor(windowBits: 15, noContextTakeover: true, level: 9)
        let zeros = [UInt8](repeating: 0, count: 10 << 20)
        let bomb = try zeros.withUnsafeBytes { try compressor.compress($0) }
        #expect(bomb.count < 20_000)
        #expect(throws: DeflateError.tooLarge) {
            try MessageDecompressor(noContextTakeover: true).decompress(bomb, limit: 1 << 20)
        }
        #expect(throws: DeflateError.corrupt) {
            try MessageDecompressor(noContextTakeover: true).decompress([0xFF, 0xFF, 0xFF], limit: 100)
        }
    }
}
