//===----------------------------------------------------------------------===//
//
// This source file is part of the Switchboard open source project
//
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//

import COpenSSL

func openSSLErrorString() -> String {
    var parts: [String] = []
    while true {
        let code = ERR_get_error()
        if code == 0 { break }
        var buffer = [CChar](repeating: 0, count: 256)
        ERR_error_string_n(code, &buffer, buffer.count)
        parts.append(String(decoding: buffer.prefix(while: { $0 != 0 }).map { UInt8(bitPattern: $0) }, as: UTF8.self))
    }
    return parts.isEmpty ? "unknown error" : parts.joined(separator: "; ")
}

/// An `SSL_CTX`: TLS 1.2 and 1.3 only.
public final class TLSContext: @unchecked Sendable {
    // @unchecked Sendable: the SSL_CTX is configured in init and only read afterwards; OpenSSL allows
    // creating SSL objects from one context on several threads.
    let context: OpaquePointer
    public let isServer: Bool

    /// A server context from PEM files.
    public init(certificatePath: String, privateKeyPath: String) throws(TLSError) {
        guard let ctx = SSL_CTX_new(TLS_server_method()) else { throw .configuration(openSSLErrorString()) }
        context = ctx
        isServer = true
        try configureVersions()
        guard SSL_CTX_use_certificate_chain_file(ctx, certificatePath) == 1 else {
            throw .configuration("certificate \(certificatePath): \(openSSLErrorString())")
        }
        guard SSL_CTX_use_PrivateKey_file(ctx, privateKeyPath, SSL_FILETYPE_PEM) == 1 else {
            throw .configuration("private key \(privateKeyPath): \(openSSLErrorString())")
        }
        guard SSL_CTX_check_private_key(ctx) == 1 else {
            throw .configuration("the private key does not match the certificate")
        }
    }

    /// A client context; `caFile` nil with `verify` false trusts anything (tests only).
    public init(clientWithCAFile caFile: String?, verify: Bool) throws(TLSError) {
        guard let ctx = SSL_CTX_new(TLS_client_method()) else { throw .configuration(openSSLErrorString()) }
        context = ctx
        isServer = false
        try configureVersions()
        if let caFile {
            guard SSL_CTX_load_verify_locations(ctx, caFile, nil) == 1 else {
                throw .configuration("CA file \(caFile): \(openSSLErrorString())")
            }
        } else if verify {
            SSL_CTX_set_default_verify_paths(ctx)
        }
        SSL_CTX_set_verify(ctx, verify ? SSL_VERIFY_PEER : SSL_VERIFY_NONE, nil)
    }

    private func configureVersions() throws(TLSError) {
        guard COpenSSL_SSL_CTX_set_min_proto_version(context, COpenSSL_TLS1_2_VERSION()) == 1,
            COpenSSL_SSL_CTX_set_max_proto_version(context, COpenSSL_TLS1_3_VERSION()) == 1
        else { throw .configuration(openSSLErrorString()) }
        _ = COpenSSL_SSL_CTX_set_mode(context, Int(SSL_MODE_ENABLE_PARTIAL_WRITE | SSL_MODE_ACCEPT_MOVING_WRITE_BUFFER))
        _ = COpenSSL_SSL_CTX_set_mode(context, Int(SSL_MODE_RELEASE_BUFFERS))
    }

    deinit { SSL_CTX_free(context) }
}
