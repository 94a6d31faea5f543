//===----------------------------------------------------------------------===//
//
// This source file is part of the Switchboard open source project
//
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//

/// `P` decoded through `CheckedDecoder` with the `StringCheck` of the decoder's `userInfo`.
struct Checked<P: Decodable>: Decodable {
    let value: P

    init(from decoder: any Decoder) throws {
        guard let strings = decoder.userInfo[StringCheck.userInfoKey] as? StringCheck else {
            value = try P(from: decoder)
            return
        }
        value = try P(from: CheckedDecoder(base: decoder, strings: strings))
    }
}
