//===----------------------------------------------------------------------===//
//
// This source file is part of the Switchboard open source project
//
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//

/// A request id: clients choose a string or an integer; replies echo it unchanged.
public enum RequestID: Hashable, Sendable, Codable, CustomStringConvertible {
    /// An integer id.
    case int(Int64)
    /// A string id of at most 64 UTF-8 bytes.
    case string(String)

    public init(from decoder: any Decoder) throws {
        let container = try decoder.singleValueContainer()
        if let i = try? container.decode(Int64.self) {
            self = .int(i)
        } else if let s = try? container.decode(String.self), s.utf8.count <= 64 {
            self = .string(s)
        } else {
            throw DecodingError.dataCorruptedError(
                in: container, debugDescription: "id must be an integer or a string of at most 64 bytes")
        }
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        switch self {
        case .int(let i): try container.encode(i)
        case .string(let s): try container.encode(s)
        }
    }

    public var description: String {
        switch self {
        case .int(let i): return String(i)
        case .string(let s): return s
        }
    }
}
