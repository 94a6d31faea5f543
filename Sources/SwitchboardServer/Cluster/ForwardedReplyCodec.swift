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
import Synchronization

/// How a forwarded answer's request id and error cross the bus (JSON).
enum ForwardedReplyCodec {
    private struct WireError: Codable {
        var code: ErrorCode
        var message: String
        var extra: [String: Int64]
        var reason: String?
    }

    static func encode(_ id: RequestID) -> [UInt8] { (try? Array(JSONEncoder().encode(id))) ?? [] }

    static func requestID(_ bytes: [UInt8]) -> RequestID? {
        try? JSONDecoder().decode(RequestID.self, from: Data(bytes))
    }

    static func encode(_ error: ServiceError) -> [UInt8] {
        let wire = WireError(code: error.code, message: error.message, extra: error.extra, reason: error.reason)
        return (try? Array(JSONEncoder().encode(wire))) ?? []
    }

    static func error(_ bytes: [UInt8]) -> ServiceError? {
        guard let wire = try? JSONDecoder().decode(WireError.self, from: Data(bytes)) else { return nil }
        return ServiceError(wire.code, wire.message, extra: wire.extra, reason: wire.reason)
    }
}
