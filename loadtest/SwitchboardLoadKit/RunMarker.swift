//===----------------------------------------------------------------------===//
//
// This source file is part of the Switchboard open source project
//
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//

/// The mark a publication's title or a post's text of the run carries: `lt.<send time>.<k>`, so that the event that
/// brings it to a member says when it was sent.
public enum RunMarker {
    /// The mark for a send at `sent` (monotonic ns) of the run's `k`th item.
    public static func make(sent: UInt64, k: Int) -> String { "lt.\(sent).\(k)" }

    /// The `"lt.<sent>.<k>"` string a publication's title or a post's text of the run carries
    /// (`make(sent:k:)`), found in the frame's bytes: the first JSON string of that form.
    public static func find(in frame: [UInt8]) -> (sent: UInt64, k: Int)? {
        let quote = UInt8(ascii: "\""), dot = UInt8(ascii: ".")
        var i = 0
        let n = frame.count
        while i + 4 < n {
            defer { i += 1 }
            guard frame[i] == quote, frame[i + 1] == UInt8(ascii: "l"), frame[i + 2] == UInt8(ascii: "t"),
                frame[i + 3] == dot
            else { continue }
            var j = i + 4
            var sent: UInt64 = 0
            var digits = 0
            while j < n, frame[j] >= 0x30, frame[j] <= 0x39, digits < 19 {  // 19 digits always fit in a UInt64
                sent = sent &* 10 &+ UInt64(frame[j] - 0x30)
                j += 1
                digits += 1
            }
            guard digits > 0, j < n, frame[j] == dot else { continue }
            j += 1
            var k = 0
            digits = 0
            while j < n, frame[j] >= 0x30, frame[j] <= 0x39, digits < 18 {
                k = k * 10 + Int(frame[j] - 0x30)
                j += 1
                digits += 1
            }
            guard digits > 0, j < n, frame[j] == quote else { continue }
            return (sent, k)
        }
        return nil
    }

}
