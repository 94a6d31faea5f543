//===----------------------------------------------------------------------===//
//
// This source file is part of the Switchboard open source project
//
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//

internal import COpenSSL

/// Short-lived TURN credentials in the "TURN REST API" scheme that coturn implements with
/// `use-auth-secret` + `static-auth-secret=<sharedSecret>`:
/// `username = "<expiry unix time>:<user id>"`, `password = base64(HMAC-SHA1(sharedSecret, username))`.
public struct TURNCredentials: Sendable, Equatable, CustomStringConvertible {
    /// `"<expiry unix time>:<user id>"`.
    public let username: String
    /// Base64 of HMAC-SHA1 over `username` keyed with the shared secret.
    public let password: String
    /// Lifetime in seconds, as given.
    public let ttl: Int64
    /// The Unix time (seconds) after which the TURN server refuses the credentials.
    public let expiresAt: Int64
    /// The TURN/STUN URIs to hand to the client (`turn:host:3478?transport=udp`, ...).
    public let uris: [String]

    /// Derives credentials for `userID`, valid from `now` for `ttl` seconds.
    /// - Parameters:
    ///   - sharedSecret: the secret configured as coturn's `static-auth-secret` (its UTF-8 bytes are the key).
    ///   - userID: the user the credentials are for (part of the username, so the TURN logs name the user).
    ///   - ttl: lifetime in seconds (default one day).
    ///   - now: the current Unix time in seconds (wall clock: coturn compares the expiry with its own clock).
    ///   - uris: the TURN/STUN URIs.
    /// - Returns: the credentials.
    public static func make(
        sharedSecret: String, userID: UserID, ttl: Int64 = 86_400, now: Int64, uris: [String]
    ) -> TURNCredentials {
        let (expiresAt, overflow) = now.addingReportingOverflow(ttl)
        let expiry = overflow ? Int64.max : expiresAt
        let username = "\(expiry):\(userID.rawValue)"
        let mac = hmacSHA1(key: Array(sharedSecret.utf8), message: Array(username.utf8))
        return TURNCredentials(
            username: username, password: base64(mac), ttl: ttl, expiresAt: expiry, uris: uris
        )
    }

    /// Redacted: the password is not printed.
    public var description: String {
        "TURNCredentials(username: \(self.username), password: <redacted>, ttl: \(self.ttl), uris: \(self.uris))"
    }

    /// HMAC-SHA1 through OpenSSL's one-shot `HMAC`.
    static func hmacSHA1(key: [UInt8], message: [UInt8]) -> [UInt8] {
        var digest = [UInt8](repeating: 0, count: Int(EVP_MAX_MD_SIZE))
        var length: UInt32 = 0
        // An empty array may have no base address; OpenSSL wants a non-null key even of length 0.
        let keyStorage = key.isEmpty ? [0] : key
        let result = keyStorage.withUnsafeBufferPointer { keyBuffer in
            message.withUnsafeBufferPointer { messageBuffer in
                digest.withUnsafeMutableBufferPointer { digestBuffer in
                    HMAC(
                        EVP_sha1(), keyBuffer.baseAddress, Int32(key.count), messageBuffer.baseAddress,
                        messageBuffer.count, digestBuffer.baseAddress, &length
                    )
                }
            }
        }
        precondition(result != nil && length == 20, "HMAC-SHA1 failed")
        return Array(digest.prefix(Int(length)))
    }

    /// Standard base64 with padding, through `EVP_EncodeBlock` (which writes a trailing NUL).
    static func base64(_ bytes: [UInt8]) -> String {
        var output = [UInt8](repeating: 0, count: (bytes.count + 2) / 3 * 4 + 1)
        let written = output.withUnsafeMutableBufferPointer { out in
            bytes.withUnsafeBufferPointer { input in
                EVP_EncodeBlock(out.baseAddress, input.baseAddress, Int32(input.count))
            }
        }
        return String(decoding: output.prefix(Int(written)), as: UTF8.self)
    }
}
