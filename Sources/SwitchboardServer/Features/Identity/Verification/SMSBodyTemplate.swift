//===----------------------------------------------------------------------===//
//
// This source file is part of the Switchboard open source project
//
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//

/// The body of an HTTP gateway's request (`--sms-gateway-body`): `{phone}`, `{code}` and `{text}` replaced in one
/// pass (a value is never searched for placeholders), each value JSON-escaped or percent-encoded as the content
/// type requires.
enum SMSBodyTemplate {
    /// `template` with its placeholders replaced.
    static func render(
        _ template: String, phone: String, code: String, text: String, as contentType: SMSGatewaySettings.ContentType
    ) -> String {
        let values = ["{phone}": phone, "{code}": code, "{text}": text]
        var out = ""
        var rest = Substring(template)
        while let open = rest.firstIndex(of: "{") {
            out += rest[..<open]
            rest = rest[open...]
            if let (name, value) = values.first(where: { rest.hasPrefix($0.key) }) {
                out += contentType == .json ? jsonEscaped(value) : formEncoded(value)
                rest = rest.dropFirst(name.count)
            } else {
                out.append("{")
                rest = rest.dropFirst()
            }
        }
        return out + rest
    }

    /// The characters of a JSON string literal's inside (without the quotes).
    static func jsonEscaped(_ value: String) -> String {
        var out = ""
        for scalar in value.unicodeScalars {
            switch scalar {
            case "\"": out += "\\\""
            case "\\": out += "\\\\"
            case "\n": out += "\\n"
            case "\r": out += "\\r"
            case "\t": out += "\\t"
            case "\u{2028}", "\u{2029}": out += "\\u\(String(scalar.value, radix: 16))"
            default:
                if scalar.value < 0x20 {
                    let hex = String(scalar.value, radix: 16)
                    out += "\\u" + String(repeating: "0", count: 4 - hex.count) + hex
                } else {
                    out.unicodeScalars.append(scalar)
                }
            }
        }
        return out
    }

    /// `application/x-www-form-urlencoded`: every byte but letters, digits and `-._~` percent-encoded.
    static func formEncoded(_ value: String) -> String {
        let hex = Array("0123456789ABCDEF".utf8)
        var out: [UInt8] = []
        for byte in value.utf8 {
            switch byte {
            case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"),
                UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "-"), UInt8(ascii: "."), UInt8(ascii: "_"),
                UInt8(ascii: "~"):
                out.append(byte)
            default: out += [UInt8(ascii: "%"), hex[Int(byte >> 4)], hex[Int(byte & 15)]]
            }
        }
        return String(decoding: out, as: UTF8.self)
    }
}
