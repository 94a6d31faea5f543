//===----------------------------------------------------------------------===//
//
// This source file is part of the Switchboard open source project
//
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//

/// A parameter rule beyond types (thrown while decoding, answered `bad_request` with the message).
enum ParameterRule: Error {
    /// The message says which rule.
    case violated(String)
    /// A string parameter of kind `.message` broke a rule: `invalid_text` with the message.
    case invalidText(String)
}
