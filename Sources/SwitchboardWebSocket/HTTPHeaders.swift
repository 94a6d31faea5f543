//===----------------------------------------------------------------------===//
//
// This source file is part of the Switchboard open source project
//
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//

/// Header fields in arrival order, looked up case-insensitively.
public struct HTTPHeaders: Sendable, Sequence {
    /// The fields as received (names keep their case).
    public private(set) var fields: [(name: String, value: String)] = []

    public init(_ fields: [(name: String, value: String)] = []) { self.fields = fields }

    public mutating func add(name: String, value: String) { fields.append((name, value)) }

    /// The first value of `name`, compared case-insensitively.
    public subscript(_ name: String) -> String? {
        for field in fields where field.name.utf8.count == name.utf8.count && asciiCaseEqual(field.name, name) {
            return field.value
        }
        return nil
    }

    /// Every value of `name`, in order.
    public func values(for name: String) -> [String] {
        fields.filter { asciiCaseEqual($0.name, name) }.map(\.value)
    }

    /// Whether the comma-separated values of `name` contain `token` (case-insensitive).
    public func containsToken(_ token: String, in name: String) -> Bool {
        for value in values(for: name) {
            for part in value.split(separator: ",") where asciiCaseEqual(trimOWS(part), token) {
                return true
            }
        }
        return false
    }

    public func makeIterator() -> IndexingIterator<[(name: String, value: String)]> { fields.makeIterator() }
}
