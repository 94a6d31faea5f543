//===----------------------------------------------------------------------===//
//
// This source file is part of the Switchboard open source project
//
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//

import Foundation
public import SwitchboardClient

#if canImport(Glibc)
import Glibc
#endif
/// One result or event: a stable `type` and fields for `--json`, a sentence for people.
public struct OutputRecord: Sendable, Equatable {
    /// `message`, `call.ended`, `friend`, ... (the `type` key of the JSON object).
    public var type: String
    /// The JSON fields besides `type` (snake_case keys).
    public var fields: [String: JSONValue]
    /// The human line.
    public var text: String
    public var style: OutputStyle

    public init(_ type: String, _ fields: [String: JSONValue] = [:], text: String, style: OutputStyle = .plain) {
        self.type = type
        self.fields = fields
        self.text = text
        self.style = style
    }
}
