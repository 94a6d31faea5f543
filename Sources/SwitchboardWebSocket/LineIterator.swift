//===----------------------------------------------------------------------===//
//
// This source file is part of the Switchboard open source project
//
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//

/// Splits a head into CRLF-terminated lines (the CRLF is not part of the line).
struct LineIterator {
    let buffer: UnsafeBufferPointer<UInt8>
    var position = 0
    init(_ buffer: UnsafeBufferPointer<UInt8>) { self.buffer = buffer }
    mutating func next() -> Slice<UnsafeBufferPointer<UInt8>>? {
        guard position < buffer.count else { return nil }
        var i = position
        while i < buffer.count && buffer[i] != 0x0A { i += 1 }
        let end = i > position && buffer[i - 1] == 0x0D ? i - 1 : i
        let line = buffer[position..<end]
        position = i + 1
        return line
    }
}
