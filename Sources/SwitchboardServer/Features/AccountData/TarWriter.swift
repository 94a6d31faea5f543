//===----------------------------------------------------------------------===//
//
// This source file is part of the Switchboard open source project
//
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//

import Dispatch
import Foundation
import Logging
import SwitchboardCore
import SwitchboardDomain
import SwitchboardProtocol
import SwitchboardStore
import SwitchboardWebSocket
import Synchronization

/// A ustar archive (the export's format inside its gzip).
enum TarWriter {
    static func archive(_ entries: [ExportEntry], folder: String) -> [UInt8] {
        var out: [UInt8] = []
        out.reserveCapacity(entries.reduce(1024) { $0 + 512 + ($1.bytes.count + 511) / 512 * 512 })
        for entry in entries {
            var header = [UInt8](repeating: 0, count: 512)
            func put(_ text: String, at offset: Int, length: Int) {
                for (i, b) in text.utf8.prefix(length).enumerated() { header[offset + i] = b }
            }
            func octal(_ value: Int, at offset: Int, length: Int) {
                put(
                    String(String(value, radix: 8).suffix(length - 1)).leftPadded(to: length - 1), at: offset,
                    length: length - 1)
            }
            put(folder + "/" + entry.path, at: 0, length: 100)
            octal(0o644, at: 100, length: 8)
            octal(0, at: 108, length: 8)
            octal(0, at: 116, length: 8)
            octal(entry.bytes.count, at: 124, length: 12)
            octal(Int(Date().timeIntervalSince1970), at: 136, length: 12)
            for i in 148..<156 { header[i] = 0x20 }
            header[156] = UInt8(ascii: "0")
            put("ustar", at: 257, length: 6)
            put("00", at: 263, length: 2)
            let checksum = header.reduce(0) { $0 + Int($1) }
            put(String(String(checksum, radix: 8)).leftPadded(to: 6), at: 148, length: 6)
            header[154] = 0
            header[155] = 0x20
            out += header
            out += entry.bytes
            let padding = (512 - entry.bytes.count % 512) % 512
            out += [UInt8](repeating: 0, count: padding)
        }
        out += [UInt8](repeating: 0, count: 1024)
        return out
    }
}

extension String {
    fileprivate func leftPadded(to length: Int) -> String {
        count >= length ? self : String(repeating: "0", count: length - count) + self
    }
}
