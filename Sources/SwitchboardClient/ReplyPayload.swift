//===----------------------------------------------------------------------===//
//
// This source file is part of the Switchboard open source project
//
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//

import Foundation

/// The `ok` object of a successful reply.
public struct ReplyPayload: Sendable, Equatable {
    /// The whole reply frame (UTF-8 JSON).
    public let frame: [UInt8]

    /// Decodes `ok` as `type` (snake_case keys become camelCase properties).
    public func decode<T: Decodable>(_ type: T.Type) throws(SwitchboardClientError) -> T {
        do {
            return try WireCoding.decoder().decode(OkBox<T>.self, from: Data(frame)).ok
        } catch {
            throw .invalidMessage("reply: \(error)")
        }
    }

    /// `ok` as a JSON object.
    public func jsonObject() -> [String: Any] {
        let object = (try? JSONSerialization.jsonObject(with: Data(frame))) as? [String: Any]
        return object?["ok"] as? [String: Any] ?? [:]
    }

    private struct OkBox<T: Decodable>: Decodable {
        var ok: T
    }
}
