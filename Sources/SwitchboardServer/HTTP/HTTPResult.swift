//===----------------------------------------------------------------------===//
//
// This source file is part of the Switchboard open source project
//
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//

import Foundation

/// The outcome of an HTTP route: status, headers and body (errors as `{"error": {"code", "message"}}`).
struct HTTPResult: Error, Sendable {
    var status: Int
    var headers: [(String, String)]
    var body: [UInt8]

    static func json(_ status: Int, _ object: [String: any Sendable], headers: [(String, String)] = []) -> HTTPResult {
        let data = (try? JSONSerialization.data(withJSONObject: object, options: [.sortedKeys])) ?? Data("{}".utf8)
        return HTTPResult(status: status, headers: [("Content-Type", "application/json")] + headers, body: Array(data))
    }

    static func error(_ status: Int, _ code: String, _ message: String, headers: [(String, String)] = []) -> HTTPResult
    {
        json(status, ["error": ["code": code, "message": message]], headers: headers)
    }
}
