//===----------------------------------------------------------------------===//
//
// This source file is part of the Switchboard open source project
//
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//

import SwitchboardCore
import SwitchboardDomain
import SwitchboardProtocol

/// Hand-written replies.
enum OperationReplies {
    /// `{"ok":<ok>,"re":id}` with `ok` already JSON.
    static func raw(_ id: RequestID, _ ok: [UInt8]) -> [UInt8] {
        var w = JSONWriter()
        w.beginObject()
        w.key("ok")
        w.raw(ok)
        w.key("re")
        switch id {
        case .int(let i): w.int(i)
        case .string(let s): w.string(s)
        }
        w.endObject()
        return w.bytes
    }
}
