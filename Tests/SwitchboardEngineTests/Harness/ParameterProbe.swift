//===----------------------------------------------------------------------===//
//
// This source file is part of the Switchboard open source project
//
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//

import Foundation
import SwitchboardProtocol

/// The shape of an op's parameters read from the type itself: `P` is decoded from a decoder that answers every
/// question (every key present, every array of one element) and records each value asked for. What it gives: every
/// string field (as the server's refusals name it: `text`, `phones[0]`) and a request frame whose fields are all of
/// the right type, with any one string replaced.
struct ParameterProbe {
    /// Every string field, in decoding order.
    let stringFields: [String]
    /// The types the probe could not make up a value of (a new kind of parameter: teach the probe).
    let failures: [String]
    /// Every value asked for, by path.
    fileprivate let leaves: [(path: [ProbeKey], value: ProbeLeaf)]

    /// The top-level fields, in decoding order.
    var fieldNames: [String] {
        var names: [String] = []
        for (path, _) in leaves {
            if case .key(let k)? = path.first, !names.contains(k) { names.append(k) }
        }
        return names
    }

    init<P: Decodable>(_ type: P.Type) {
        let recorder = ProbeRecorder()
        // A rule checked after the fields were read (`friends.request`'s "exactly one of") may refuse the probe's
        // values: the fields are recorded by then.
        do {
            _ = try P(from: ProbeDecoder(recorder: recorder, path: []))
        } catch let error as DecodingError {
            // A type the probe's values do not fit (an enum of strings): teach the probe.
            recorder.failures.append("\(error)")
        } catch {}
        leaves = recorder.leaves
        failures = recorder.failures
        stringFields = recorder.leaves.compactMap { leaf in
            if case .string = leaf.value { return ProbeKey.render(leaf.path) }
            return nil
        }
    }

    /// `{"id": id, "op": op, ...fields}` with `value` as the string at `field` (the probe's values elsewhere).
    func frame(id: Int, op: String, setting field: String? = nil, to value: String = "") -> [UInt8] {
        var root = ProbeNode.object([])
        for (path, leaf) in leaves {
            var leaf = leaf
            if case .string = leaf, ProbeKey.render(path) == field { leaf = .string(value) }
            root.set(path[...], leaf)
        }
        guard case .object(var members) = root else { return [] }
        members.append(("id", .leaf(.int(Int64(id)))))
        members.append(("op", .leaf(.string(op))))
        return Array(ProbeNode.object(members).json.utf8)
    }
}

/// One step of a path: an object's key (as on the wire, snake_case) or an array's index.
private enum ProbeKey: Equatable {
    case key(String)
    case index(Int)

    static func render(_ path: [ProbeKey]) -> String {
        var out = ""
        for step in path {
            switch step {
            case .key(let k): out += (out.isEmpty ? "" : ".") + k
            case .index(let i): out += "[\(i)]"
            }
        }
        return out
    }

    static func wire(_ key: any CodingKey) -> ProbeKey {
        if let i = key.intValue { return .index(i) }
        var out = ""
        for c in key.stringValue {
            if c.isUppercase { out += "_" + c.lowercased() } else { out.append(c) }
        }
        return .key(out)
    }
}

private enum ProbeLeaf {
    case int(Int64)
    case double(Double)
    case bool(Bool)
    case string(String)
}

/// The frame's JSON tree.
private indirect enum ProbeNode {
    case leaf(ProbeLeaf)
    case object([(String, ProbeNode)])
    case array([ProbeNode])

    mutating func set(_ path: ArraySlice<ProbeKey>, _ leaf: ProbeLeaf) {
        guard let first = path.first else {
            self = .leaf(leaf)
            return
        }
        let rest = path.dropFirst()
        switch first {
        case .key(let k):
            var members: [(String, ProbeNode)] = []
            if case .object(let m) = self { members = m }
            if let i = members.firstIndex(where: { $0.0 == k }) {
                members[i].1.set(rest, leaf)
            } else {
                var child = rest.first.map { $0 == .index(0) ? ProbeNode.array([]) : .object([]) } ?? .leaf(leaf)
                child.set(rest, leaf)
                members.append((k, child))
            }
            self = .object(members)
        case .index(let i):
            var elements: [ProbeNode] = []
            if case .array(let e) = self { elements = e }
            while elements.count <= i { elements.append(.object([])) }
            elements[i].set(rest, leaf)
            self = .array(elements)
        }
    }

    var json: String {
        switch self {
        case .leaf(.int(let v)): return String(v)
        case .leaf(.double(let v)): return String(v)
        case .leaf(.bool(let v)): return v ? "true" : "false"
        case .leaf(.string(let s)):
            return String(decoding: (try? JSONEncoder().encode(s)) ?? Data("\"\"".utf8), as: UTF8.self)
        case .object(let members):
            let body = members.map { ProbeNode.leaf(.string($0.0)).json + ":" + $0.1.json }
            return "{" + body.joined(separator: ",") + "}"
        case .array(let elements): return "[" + elements.map(\.json).joined(separator: ",") + "]"
        }
    }
}

private final class ProbeRecorder {
    var leaves: [(path: [ProbeKey], value: ProbeLeaf)] = []
    var failures: [String] = []

    func record<T>(_ path: [ProbeKey], _ type: T.Type) throws -> T {
        let leaf: ProbeLeaf
        let value: Any
        switch type {
        case is String.Type: (leaf, value) = (.string("x"), "x")
        case is Bool.Type: (leaf, value) = (.bool(true), true)
        case is Double.Type: (leaf, value) = (.double(1), Double(1))
        case is Float.Type: (leaf, value) = (.double(1), Float(1))
        case is Int.Type: (leaf, value) = (.int(1), 1)
        case is Int64.Type: (leaf, value) = (.int(1), Int64(1))
        case is Int32.Type: (leaf, value) = (.int(1), Int32(1))
        case is UInt64.Type: (leaf, value) = (.int(1), UInt64(1))
        default:
            failures.append("\(type)")
            throw ProbeError.unsupported("\(type)")
        }
        leaves.append((path, leaf))
        guard let typed = value as? T else { throw ProbeError.unsupported("\(type)") }
        return typed
    }
}

private enum ProbeError: Error {
    case unsupported(String)
}

private struct ProbeDecoder: Decoder {
    let recorder: ProbeRecorder
    let path: [ProbeKey]
    var codingPath: [any CodingKey] { [] }
    var userInfo: [CodingUserInfoKey: Any] { [:] }

    func container<Key: CodingKey>(keyedBy type: Key.Type) throws -> KeyedDecodingContainer<Key> {
        KeyedDecodingContainer(ProbeKeyed<Key>(recorder: recorder, path: path))
    }
    func unkeyedContainer() throws -> any UnkeyedDecodingContainer { ProbeUnkeyed(recorder: recorder, path: path) }
    func singleValueContainer() throws -> any SingleValueDecodingContainer {
        ProbeSingle(recorder: recorder, path: path)
    }
}

private func probeValue<T: Decodable>(_ type: T.Type, _ recorder: ProbeRecorder, _ path: [ProbeKey]) throws -> T {
    switch type {
    case is String.Type, is Bool.Type, is Double.Type, is Float.Type, is Int.Type, is Int64.Type, is Int32.Type,
        is UInt64.Type:
        return try recorder.record(path, type)
    default:
        return try T(from: ProbeDecoder(recorder: recorder, path: path))
    }
}

private struct ProbeKeyed<Key: CodingKey>: KeyedDecodingContainerProtocol {
    let recorder: ProbeRecorder
    let path: [ProbeKey]
    var codingPath: [any CodingKey] { [] }
    var allKeys: [Key] { [] }
    func contains(_ key: Key) -> Bool { true }
    func decodeNil(forKey key: Key) throws -> Bool { false }
    func decode<T: Decodable>(_ type: T.Type, forKey key: Key) throws -> T {
        try probeValue(type, recorder, path + [ProbeKey.wire(key)])
    }
    func nestedContainer<NestedKey: CodingKey>(
        keyedBy type: NestedKey.Type, forKey key: Key
    ) throws -> KeyedDecodingContainer<NestedKey> {
        KeyedDecodingContainer(ProbeKeyed<NestedKey>(recorder: recorder, path: path + [ProbeKey.wire(key)]))
    }
    func nestedUnkeyedContainer(forKey key: Key) throws -> any UnkeyedDecodingContainer {
        ProbeUnkeyed(recorder: recorder, path: path + [ProbeKey.wire(key)])
    }
    func superDecoder() throws -> any Decoder { ProbeDecoder(recorder: recorder, path: path) }
    func superDecoder(forKey key: Key) throws -> any Decoder {
        ProbeDecoder(recorder: recorder, path: path + [ProbeKey.wire(key)])
    }
}

private struct ProbeUnkeyed: UnkeyedDecodingContainer {
    let recorder: ProbeRecorder
    let path: [ProbeKey]
    var codingPath: [any CodingKey] { [] }
    var count: Int? { 1 }
    var currentIndex = 0
    var isAtEnd: Bool { currentIndex >= 1 }

    init(recorder: ProbeRecorder, path: [ProbeKey]) {
        self.recorder = recorder
        self.path = path
    }

    mutating func decodeNil() throws -> Bool { false }
    mutating func decode<T: Decodable>(_ type: T.Type) throws -> T {
        defer { currentIndex += 1 }
        return try probeValue(type, recorder, path + [.index(currentIndex)])
    }
    mutating func nestedContainer<NestedKey: CodingKey>(
        keyedBy type: NestedKey.Type
    ) throws -> KeyedDecodingContainer<NestedKey> {
        defer { currentIndex += 1 }
        return KeyedDecodingContainer(ProbeKeyed<NestedKey>(recorder: recorder, path: path + [.index(currentIndex)]))
    }
    mutating func nestedUnkeyedContainer() throws -> any UnkeyedDecodingContainer {
        defer { currentIndex += 1 }
        return ProbeUnkeyed(recorder: recorder, path: path + [.index(currentIndex)])
    }
    mutating func superDecoder() throws -> any Decoder {
        defer { currentIndex += 1 }
        return ProbeDecoder(recorder: recorder, path: path + [.index(currentIndex)])
    }
}

private struct ProbeSingle: SingleValueDecodingContainer {
    let recorder: ProbeRecorder
    let path: [ProbeKey]
    var codingPath: [any CodingKey] { [] }
    func decodeNil() -> Bool { false }
    func decode<T: Decodable>(_ type: T.Type) throws -> T { try probeValue(type, recorder, path) }
}
