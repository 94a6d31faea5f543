//===----------------------------------------------------------------------===//
//
// This source file is part of the Switchboard open source project
//
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//

struct EventEnvelope<E: Encodable>: Encodable {
    var ev: String
    var body: E

    enum CodingKeys: String, CodingKey { case ev }

    func encode(to encoder: any Encoder) throws {
        try body.encode(to: encoder)
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(ev, forKey: .ev)
    }
}
