//===----------------------------------------------------------------------===//
//
// This source file is part of the Switchboard open source project
//
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//

/// A decoder that hands every string it decodes, at any depth, to `StringCheck` before the parameters' own
/// `init(from:)` sees it: the one place an op's string parameters are checked (`ProtocolCodec.parameterDecoder`).
struct CheckedDecoder: Decoder {
    let base: any Decoder
    let strings: StringCheck

    var codingPath: [any CodingKey] { base.codingPath }
    var userInfo: [CodingUserInfoKey: Any] { base.userInfo }

    func container<Key: CodingKey>(keyedBy type: Key.Type) throws -> KeyedDecodingContainer<Key> {
        KeyedDecodingContainer(CheckedKeyedContainer(base: try base.container(keyedBy: type), strings: strings))
    }

    func unkeyedContainer() throws -> any UnkeyedDecodingContainer {
        CheckedUnkeyedContainer(base: try base.unkeyedContainer(), strings: strings)
    }

    func singleValueContainer() throws -> any SingleValueDecodingContainer {
        CheckedSingleValueContainer(base: try base.singleValueContainer(), strings: strings)
    }

    /// Whether values of `T` hold no string (decoded by the base decoder directly).
    static func holdsNoString<T>(_ type: T.Type) -> Bool {
        T.self == Int64.self || T.self == Int.self || T.self == Bool.self || T.self == Double.self
            || T.self == Int32.self || T.self == UInt64.self || T.self == [Int64].self || T.self == [Int].self
    }
}

private struct CheckedKeyedContainer<Key: CodingKey>: KeyedDecodingContainerProtocol {
    let base: KeyedDecodingContainer<Key>
    let strings: StringCheck

    var codingPath: [any CodingKey] { base.codingPath }
    var allKeys: [Key] { base.allKeys }
    func contains(_ key: Key) -> Bool { base.contains(key) }
    func decodeNil(forKey key: Key) throws -> Bool { try base.decodeNil(forKey: key) }
    func decode(_ type: Bool.Type, forKey key: Key) throws -> Bool { try base.decode(type, forKey: key) }
    func decode(_ type: Double.Type, forKey key: Key) throws -> Double { try base.decode(type, forKey: key) }
    func decode(_ type: Float.Type, forKey key: Key) throws -> Float { try base.decode(type, forKey: key) }
    func decode(_ type: Int.Type, forKey key: Key) throws -> Int { try base.decode(type, forKey: key) }
    func decode(_ type: Int8.Type, forKey key: Key) throws -> Int8 { try base.decode(type, forKey: key) }
    func decode(_ type: Int16.Type, forKey key: Key) throws -> Int16 { try base.decode(type, forKey: key) }
    func decode(_ type: Int32.Type, forKey key: Key) throws -> Int32 { try base.decode(type, forKey: key) }
    func decode(_ type: Int64.Type, forKey key: Key) throws -> Int64 { try base.decode(type, forKey: key) }
    func decode(_ type: UInt.Type, forKey key: Key) throws -> UInt { try base.decode(type, forKey: key) }
    func decode(_ type: UInt8.Type, forKey key: Key) throws -> UInt8 { try base.decode(type, forKey: key) }
    func decode(_ type: UInt16.Type, forKey key: Key) throws -> UInt16 { try base.decode(type, forKey: key) }
    func decode(_ type: UInt32.Type, forKey key: Key) throws -> UInt32 { try base.decode(type, forKey: key) }
    func decode(_ type: UInt64.Type, forKey key: Key) throws -> UInt64 { try base.decode(type, forKey: key) }

    func decode(_ type: String.Type, forKey key: Key) throws -> String {
        let value = try base.decode(type, forKey: key)
        try strings.check(value, at: base.codingPath + [key])
        return value
    }

    func decode<T: Decodable>(_ type: T.Type, forKey key: Key) throws -> T {
        if T.self == String.self, let value = try decode(String.self, forKey: key) as? T { return value }
        // A missing key is the base's error (`missing field`), as is every type without strings.
        if CheckedDecoder.holdsNoString(T.self) || !base.contains(key) { return try base.decode(type, forKey: key) }
        return try T(from: CheckedDecoder(base: try base.superDecoder(forKey: key), strings: strings))
    }

    func nestedContainer<NestedKey: CodingKey>(
        keyedBy type: NestedKey.Type, forKey key: Key
    ) throws -> KeyedDecodingContainer<NestedKey> {
        KeyedDecodingContainer(
            CheckedKeyedContainer<NestedKey>(
                base: try base.nestedContainer(keyedBy: type, forKey: key), strings: strings))
    }

    func nestedUnkeyedContainer(forKey key: Key) throws -> any UnkeyedDecodingContainer {
        CheckedUnkeyedContainer(base: try base.nestedUnkeyedContainer(forKey: key), strings: strings)
    }

    func superDecoder() throws -> any Decoder { CheckedDecoder(base: try base.superDecoder(), strings: strings) }

    func superDecoder(forKey key: Key) throws -> any Decoder {
        CheckedDecoder(base: try base.superDecoder(forKey: key), strings: strings)
    }
}

private struct CheckedUnkeyedContainer: UnkeyedDecodingContainer {
    var base: any UnkeyedDecodingContainer
    let strings: StringCheck

    var codingPath: [any CodingKey] { base.codingPath }
    var count: Int? { base.count }
    var isAtEnd: Bool { base.isAtEnd }
    var currentIndex: Int { base.currentIndex }

    mutating func decodeNil() throws -> Bool { try base.decodeNil() }

    mutating func decode(_ type: String.Type) throws -> String {
        let path = base.codingPath + [IndexKey(intValue: base.currentIndex)]
        let value = try base.decode(type)
        try strings.check(value, at: path)
        return value
    }

    mutating func decode<T: Decodable>(_ type: T.Type) throws -> T {
        if T.self == String.self, let value = try decode(String.self) as? T { return value }
        if CheckedDecoder.holdsNoString(T.self) { return try base.decode(type) }
        return try T(from: CheckedDecoder(base: try base.superDecoder(), strings: strings))
    }

    mutating func nestedContainer<NestedKey: CodingKey>(
        keyedBy type: NestedKey.Type
    ) throws -> KeyedDecodingContainer<NestedKey> {
        KeyedDecodingContainer(
            CheckedKeyedContainer<NestedKey>(base: try base.nestedContainer(keyedBy: type), strings: strings))
    }

    mutating func nestedUnkeyedContainer() throws -> any UnkeyedDecodingContainer {
        CheckedUnkeyedContainer(base: try base.nestedUnkeyedContainer(), strings: strings)
    }

    mutating func superDecoder() throws -> any Decoder {
        CheckedDecoder(base: try base.superDecoder(), strings: strings)
    }
}

private struct CheckedSingleValueContainer: SingleValueDecodingContainer {
    let base: any SingleValueDecodingContainer
    let strings: StringCheck

    var codingPath: [any CodingKey] { base.codingPath }
    func decodeNil() -> Bool { base.decodeNil() }

    func decode(_ type: String.Type) throws -> String {
        let value = try base.decode(type)
        try strings.check(value, at: base.codingPath)
        return value
    }

    func decode<T: Decodable>(_ type: T.Type) throws -> T {
        if T.self == String.self, let value = try decode(String.self) as? T { return value }
        if CheckedDecoder.holdsNoString(T.self) { return try base.decode(type) }
        // JSONDecoder's single-value container is its decoder: `T` reads its strings through the check too.
        guard let decoder = base as? any Decoder else { return try base.decode(type) }
        return try T(from: CheckedDecoder(base: decoder, strings: strings))
    }
}

/// An array index in a coding path.
private struct IndexKey: CodingKey {
    var intValue: Int?
    var stringValue: String { "\(intValue ?? 0)" }
    init(intValue: Int) { self.intValue = intValue }
    init?(stringValue: String) { nil }
}
