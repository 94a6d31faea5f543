//===----------------------------------------------------------------------===//
//
// This source file is part of the Switchboard open source project
//
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//

import Foundation

/// The `ok` object of a reply, decoded on demand as the type the op returns.
public struct ReplyResult: Sendable, Equatable {
    /// The whole reply frame.
    let frame: [UInt8]

    /// Decodes `ok` as `type` (e.g. `SessionCredentials` for `login`, `Empty` for `ping`).
    /// - Throws: `ProtocolError` (`bad_request`) naming the missing or mistyped field.
    public func decode<T: Decodable>(_ type: T.Type) throws(ProtocolError) -> T {
        do {
            return try ProtocolCodec.requestDecoder().decode(OkBox<T>.self, from: Data(frame)).ok
        } catch {
            throw ProtocolCodec.parameterError(error, id: nil)
        }
    }

    private struct OkBox<T: Decodable>: Decodable {
        var ok: T
    }
}
