//===----------------------------------------------------------------------===//
//
// This source file is part of the Switchboard open source project
//
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//

struct ErrorReply: Encodable {
    var re: RequestID?
    var error: ErrorBody

    enum CodingKeys: String, CodingKey { case re, error }

    func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        if let re { try container.encode(re, forKey: .re) } else { try container.encodeNil(forKey: .re) }
        try container.encode(error, forKey: .error)
    }
}
