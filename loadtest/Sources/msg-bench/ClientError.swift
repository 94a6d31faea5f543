//===----------------------------------------------------------------------===//
//
// This source file is part of the Switchboard open source project
//
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//

struct ClientError: Error, CustomStringConvertible {
    var code: String
    var message: String
    var description: String { "\(code): \(message)" }
}
