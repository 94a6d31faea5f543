//===----------------------------------------------------------------------===//
//
// This source file is part of the Switchboard open source project
//
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//

import Foundation
import Testing

@testable import SwitchboardCalls

@Suite("TURN credentials")
struct TURNCredentialsTests {
    @Test("Username is expiry:user and the password is base64(HMAC-SHA1(secret, username)) (known vector)")
    func knownVector() {
        // Vector computed independently:
        // printf '1700086400:42' | openssl dgst -sha1 -hmac north-sea-secret -binary | base64
        let credentials = TURNCredentials.make(
            sharedSecret: "north-sea-secret", userID: UserID(42), ttl: 86_400, now: 1_700_000_000,
            uris: ["turn:127.0.0.1:3478?transport=udp"]
        )
        #expect(credentials.username == "1700086400:42")
        #expect(credentials.password == "Rf9sfQroQUMCbOthwBz3LUye5CE=")
        #expect(credentials.ttl == 86_400)
        #expect(credentials.expiresAt == 1_700_086_400)
        #expect(credentials.uris == ["turn:127.0.0.1:3478?transport=udp"])
        #expect(!credentials.description.contains(credentials.password))
    }

    @Test("An empty secret still yields HMAC-SHA1 with an empty key")
    func emptySecret() {
        // python3 -c "import hmac,hashlib,base64;print(base64.b64encode(hmac.new(b'',b'0:1',hashlib.sha1).digest()))"
        let credentials = TURNCredentials.make(sharedSecret: "", userID: UserID(1), ttl: 0, now: 0, uris: [])
        #expect(credentials.username == "0:1")
        #expect(credentials.password == "6NENMB2BeXOWC67DmwUglHjrKQg=")
    }

    @Test(
        "Matches Python's hmac module for several secrets, users and times",
        arguments: [
            ("s", Int64(1), Int64(600), Int64(1_800_000_000)),
            (
                "a much longer shared secret than the sixty-four byte HMAC block size of SHA-1, to hash the key",
                987_654, 3_600, 0
            ),
            ("ünïcødé-secret", 7, 86_400, 1_234_567_890),
        ])
    func matchesPython(secret: String, user: Int64, ttl: Int64, now: Int64) throws {
        let credentials = TURNCredentials.make(
            sharedSecret: secret, userID: UserID(user), ttl: ttl, now: now, uris: []
        )
        #expect(credentials.username == "\(now + ttl):\(user)")
        let expected = try pythonHMAC(secret: secret, message: credentials.username)
        #expect(credentials.password == expected)
    }

    /// base64(HMAC-SHA1) computed by python3 in a child process.
    private func pythonHMAC(secret: String, message: String) throws -> String {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = [
            "python3", "-c",
            "import hmac,hashlib,base64,sys;"
                + "mac=hmac.new(sys.argv[1].encode(),sys.argv[2].encode(),hashlib.sha1);"
                + "print(base64.b64encode(mac.digest()).decode())",
            secret, message,
        ]
        let pipe = Pipe()
        process.standardOutput = pipe
        try process.run()
        let data = pipe.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        #expect(process.terminationStatus == 0)
        return String(decoding: data, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
    }
}
