//===----------------------------------------------------------------------===//
//
// This source file is part of the Switchboard open source project
//
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//

/// `PerMessageDeflateParameters?` in four bytes: a presence bit, the two no-context-takeover flags and the two window
/// sizes (8-15 when negotiated).
struct PackedDeflateParameters {
    private let bits: UInt32

    init(_ parameters: PerMessageDeflateParameters?) {
        guard let p = parameters else {
            bits = 0
            return
        }
        var b: UInt32 = 1
        if p.serverNoContextTakeover { b |= 2 }
        if p.clientNoContextTakeover { b |= 4 }
        b |= UInt32(UInt8(clamping: p.serverMaxWindowBits)) << 8
        b |= UInt32(UInt8(clamping: p.clientMaxWindowBits)) << 16
        bits = b
    }

    var isPresent: Bool { bits & 1 != 0 }

    var parameters: PerMessageDeflateParameters? {
        guard isPresent else { return nil }
        var p = PerMessageDeflateParameters()
        p.serverNoContextTakeover = bits & 2 != 0
        p.clientNoContextTakeover = bits & 4 != 0
        p.serverMaxWindowBits = Int((bits >> 8) & 0xFF)
        p.clientMaxWindowBits = Int((bits >> 16) & 0xFF)
        return p
    }
}
