//===----------------------------------------------------------------------===//
//
// This source file is part of the Switchboard open source project
//
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//

import SwitchboardCore
import SwitchboardWebSocket

/// A route's path: literal segments, `{name}` for one segment (possibly empty) and a last `{name...}` for the rest
/// of the path (possibly empty, slashes included).
struct PathPattern: Sendable, Equatable, CustomStringConvertible {
    enum Segment: Sendable, Equatable {
        case literal(String)
        case parameter(String)
        case rest(String)
    }

    let segments: [Segment]
    let description: String

    init(_ pattern: String) {
        precondition(pattern.hasPrefix("/"), "a path pattern starts with /")
        description = pattern
        let parts = pattern.dropFirst().split(separator: "/", omittingEmptySubsequences: false)
        var segments: [Segment] = []
        for (index, part) in parts.enumerated() {
            if part.hasPrefix("{") && part.hasSuffix("...}") {
                precondition(index == parts.count - 1, "{name...} is the last segment of \(pattern)")
                segments.append(.rest(String(part.dropFirst().dropLast(4))))
            } else if part.hasPrefix("{") && part.hasSuffix("}") {
                segments.append(.parameter(String(part.dropFirst().dropLast())))
            } else {
                segments.append(.literal(String(part)))
            }
        }
        self.segments = segments
    }

    /// The parameters when `path` matches, nil otherwise.
    func match(_ path: String) -> PathParameters? {
        guard path.hasPrefix("/") else { return nil }
        var rest = Substring(path.dropFirst())
        var parameters = PathParameters()
        for (index, segment) in segments.enumerated() {
            let last = index == segments.count - 1
            if case .rest(let name) = segment {
                parameters.set(name, String(rest))
                return parameters
            }
            let end = rest.firstIndex(of: "/") ?? rest.endIndex
            let part = rest[..<end]
            switch segment {
            case .literal(let text): guard part == text else { return nil }
            case .parameter(let name): parameters.set(name, String(part))
            case .rest: break
            }
            if last { return end == rest.endIndex ? parameters : nil }
            guard end != rest.endIndex else { return nil }
            rest = rest[rest.index(after: end)...]
        }
        return rest.isEmpty ? parameters : nil
    }
}
