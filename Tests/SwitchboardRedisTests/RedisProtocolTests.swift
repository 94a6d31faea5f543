//===----------------------------------------------------------------------===//
//
// This source file is part of the Switchboard open source project
//
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//

import Testing

@testable import SwitchboardRedis

@Suite struct RedisProtocolTests {
    @Test func commandsAreEncodedAsBulkStringArraysBinarySafe() {
        var bytes: [UInt8] = []
        let command = RedisCommand("SET", "k", [0, 0xFF, 13, 10] as [UInt8])
        command.encode(into: &bytes)
        #expect(bytes == Array("*3\r\n$3\r\nSET\r\n$1\r\nk\r\n$4\r\n".utf8) + [0, 0xFF, 13, 10] + [13, 10])
        #expect(bytes.count == command.encodedCount)
        #expect("\(command)" == "RedisCommand(SET, 2 arguments)")
        #expect(!"\(RedisCommand("AUTH", "user", "hunter2"))".contains("hunter2"))
    }

    @Test func readerParsesEveryReplyTypeFedOneByteAtATime() throws {
        let input =
            Array("+OK\r\n-ERR bad\r\n:-42\r\n$3\r\n".utf8) + [0, 0xFF, 10]
            + Array("\r\n$-1\r\n*-1\r\n*2\r\n*1\r\n:1\r\n$0\r\n\r\n".utf8)
        let reader = RedisReplyReader(maxElements: 16, maxReplyBytes: 1024)
        var values: [RedisValue] = []
        for byte in input {
            try reader.feed([byte])
            while let value = try reader.next() { values.append(value) }
        }
        #expect(
            values == [
                .simpleString("OK"), .error("ERR bad"), .integer(-42), .bulk([0, 0xFF, 10]), .null, .null,
                .array([.array([.integer(1)]), .bulk([])]),
            ])
    }

    @Test func malformedInputIsAnErrorThatSticks() throws {
        let reader = RedisReplyReader(maxElements: 16, maxReplyBytes: 1024)
        try reader.feed(Array("?what\r\n".utf8))
        #expect(throws: RedisError.self) { try reader.next() }
        #expect(throws: RedisError.self) { try reader.feed(Array("+OK\r\n".utf8)) }
    }

    @Test func arraysPastTheElementLimitAreRefusedBeforeAllocation() throws {
        let reader = RedisReplyReader(maxElements: 1000, maxReplyBytes: 1 << 20)
        try reader.feed(Array("*2000000000\r\n".utf8))
        #expect {
            try reader.next()
        } throws: { error in
            (error as? RedisError).map { "\($0)".contains("element limit") } ?? false
        }
    }

    @Test func repliesPastTheByteLimitAreRefused() throws {
        let reader = RedisReplyReader(maxElements: 1000, maxReplyBytes: 100)
        try reader.feed(Array("$1000\r\n".utf8) + [UInt8](repeating: 65, count: 200))
        #expect(throws: RedisError.self) { try reader.next() }
    }

    @Test func nestingDeeperThanHiredisAllowsIsAnError() throws {
        let reader = RedisReplyReader(maxElements: 1000, maxReplyBytes: 1 << 20)
        try reader.feed(Array(String(repeating: "*1\r\n", count: 12).utf8) + Array(":1\r\n".utf8))
        #expect(throws: RedisError.self) { try reader.next() }
    }

    @Test func configurationFromURLs() throws {
        var c = try RedisConfiguration(url: "redis://127.0.0.1:6380/3")
        #expect(c.host == "127.0.0.1" && c.port == 6380 && c.database == 3 && !c.tls && c.password == nil)
        c = try RedisConfiguration(url: "rediss://alice:s%40cret@cache.example:7000")
        #expect(c.tls && c.username == "alice" && c.password == "s@cret" && c.port == 7000 && c.database == 0)
        #expect(c.description == "rediss://alice:***@cache.example:7000")
        #expect(!c.debugDescription.contains("cret"))
        c = try RedisConfiguration(url: "redis://:pw@[::1]")
        #expect(c.host == "::1" && c.port == 6379 && c.username == nil && c.password == "pw")
        #expect(c.description == "redis://:***@[::1]:6379")
        #expect(throws: RedisError.self) { try RedisConfiguration(url: "http://x") }
        #expect(throws: RedisError.self) { try RedisConfiguration(url: "redis://h/x") }
        #expect(throws: RedisError.self) { try RedisConfiguration(url: "redis://user@h") }
        do {
            _ = try RedisConfiguration(url: "redis://u:topsecret@h:99999")
            Issue.record("accepted a bad port")
        } catch {
            #expect(!"\(error)".contains("topsecret"))
        }
    }

    @Test func backoffDoublesUpToTheCapWithJitterBelow() {
        let b = RedisBackoff(minDelay: .milliseconds(100), maxDelay: .seconds(1), jitter: 0.5)
        #expect(b.delay(attempt: 0, random: 0) == .milliseconds(100))
        #expect(b.delay(attempt: 1, random: 0) == .milliseconds(200))
        #expect(b.delay(attempt: 3, random: 0) == .milliseconds(800))
        #expect(b.delay(attempt: 4, random: 0) == .seconds(1))
        #expect(b.delay(attempt: 1000, random: 0) == .seconds(1))
        #expect(b.delay(attempt: 0, random: 0.999) > .milliseconds(50))
        #expect(b.delay(attempt: 0, random: 0.5) == .milliseconds(75))
    }

    @Test func scriptSHA1MatchesRedis() {
        // SCRIPT LOAD "return 1" answers e0e1f9fabfc9d4800c877a703b823ac0578ff8db.
        #expect(RedisScript("return 1").sha1 == "e0e1f9fabfc9d4800c877a703b823ac0578ff8db")
    }
}
