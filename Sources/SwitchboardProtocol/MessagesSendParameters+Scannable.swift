//===----------------------------------------------------------------------===//
//
// This source file is part of the Switchboard open source project
//
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//

extension Ops.MessagesSend.Parameters: ScannableParameters {
    public static func scanned(from request: [UInt8]) -> Self? {
        var p = Self()
        var seen: UInt8 = 0
        let ok = EnvelopeScanner.members(of: request) { key, value in
            // Keys outside the set (even camelCase spellings, which convertFromSnakeCase would also match),
            // duplicates and values of another type decline.
            let bit: UInt8
            switch key.count {
            case 2 where key.elementsEqual("id".utf8): bit = 1
            case 2 where key.elementsEqual("op".utf8): bit = 2
            case 4 where key.elementsEqual("text".utf8):
                guard let v = value.optionalString else { return false }
                (bit, p.text) = (4, v)
            case 7 where key.elementsEqual("user_id".utf8):
                guard let v = value.optionalInteger else { return false }
                (bit, p.userId) = (8, v)
            case 8 where key.elementsEqual("voice_id".utf8):
                guard let v = value.optionalInteger else { return false }
                (bit, p.voiceId) = (16, v)
            case 9 where key.elementsEqual("client_id".utf8):
                guard let v = value.optionalString else { return false }
                (bit, p.clientId) = (32, v)
            case 15 where key.elementsEqual("conversation_id".utf8):
                guard let v = value.optionalInteger else { return false }
                (bit, p.conversationId) = (64, v)
            default: return false
            }
            guard seen & bit == 0 else { return false }
            seen |= bit
            return true
        }
        return ok ? p : nil
    }
}
