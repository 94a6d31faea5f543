//===----------------------------------------------------------------------===//
//
// This source file is part of the Switchboard open source project
//
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//

struct ErrorBody: Encodable {
    var code: ErrorCode
    var message: String
    var extra: [String: Int64]
    var reason: String? = nil

    struct Key: CodingKey {
        var stringValue: String
        var intValue: Int? { nil }
        init(stringValue: String) { self.stringValue = stringValue }
        init?(intValue: Int) { nil }
    }

    func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: Key.self)
        try container.encode(code, forKey: Key(stringValue: "code"))
        try container.encode(message, forKey: Key(stringValue: "message"))
        for (k, v) in extra { try container.encode(v, forKey: Key(stringValue: k)) }
        if let reason { try container.encode(reason, forKey: Key(stringValue: "reason")) }
    }
}
