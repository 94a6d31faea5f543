//===----------------------------------------------------------------------===//
//
// This source file is part of the Switchboard open source project
//
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//

import COpenSSL

/// TLS failures; descriptions carry OpenSSL's error string, never key material.
public enum TLSError: Error, CustomStringConvertible, Sendable {
    /// The context could not be built (bad certificate or key path, mismatch).
    case configuration(String)
    /// The handshake or record layer failed.
    case protocolFailure(String)

    public var description: String {
        switch self {
        case .configuration(let s): return "TLS configuration: \(s)"
        case .protocolFailure(let s): return "TLS: \(s)"
        }
    }
}

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

/// One TLS session over memory BIOs: ciphertext in and out are ours to move; the socket stays in the transport.
final class TLSConnection {
    private let ssl: OpaquePointer
    private let readBIO: OpaquePointer
    private let writeBIO: OpaquePointer
    private(set) var handshakeDone = false
    private var plaintext = [UInt8](repeating: 0, count: 0)

    init(context: TLSContext, serverName: String? = nil) throws(TLSError) {
        guard let ssl = SSL_new(context.context), let r = BIO_new(BIO_s_mem()), let w = BIO_new(BIO_s_mem()) else {
            throw .configuration(openSSLErrorString())
        }
        self.ssl = ssl
        readBIO = r
        writeBIO = w
        _ = COpenSSL_BIO_set_mem_eof_return(r, -1)
        _ = COpenSSL_BIO_set_mem_eof_return(w, -1)
        SSL_set_bio(ssl, r, w)
        if context.isServer {
            SSL_set_accept_state(ssl)
        } else {
            SSL_set_connect_state(ssl)
            if let serverName { _ = COpenSSL_SSL_set_tlsext_host_name(ssl, serverName) }
        }
    }

    deinit { SSL_free(ssl) }  // frees both BIOs

    func startClientHandshake() throws(TLSError) {
        try advanceHandshake()
    }

    private func advanceHandshake() throws(TLSError) {
        guard !handshakeDone else { return }
        let rc = SSL_do_handshake(ssl)
        if rc == 1 {
            handshakeDone = true
            return
        }
        let err = SSL_get_error(ssl, rc)
        if err == SSL_ERROR_WANT_READ || err == SSL_ERROR_WANT_WRITE { return }
        throw .protocolFailure(openSSLErrorString())
    }

    /// Feeds ciphertext; plaintext (possibly several pieces) goes to `deliver`.
    func receive(_ ciphertext: UnsafeRawBufferPointer, deliver: (UnsafeRawBufferPointer) -> Void) throws(TLSError) {
        var offset = 0
        while offset < ciphertext.count {
            let n = BIO_write(readBIO, ciphertext.baseAddress! + offset, Int32(ciphertext.count - offset))
            guard n > 0 else { throw .protocolFailure("BIO_write failed") }
            offset += Int(n)
        }
        if !handshakeDone {
            try advanceHandshake()
            if !handshakeDone { return }
        }
        if plaintext.isEmpty { plaintext = [UInt8](repeating: 0, count: 16 * 1024) }
        while true {
            let n = plaintext.withUnsafeMutableBytes { SSL_read(ssl, $0.baseAddress, Int32($0.count)) }
            if n > 0 {
                plaintext.withUnsafeBytes { deliver(UnsafeRawBufferPointer(rebasing: $0[0..<Int(n)])) }
                continue
            }
            let err = SSL_get_error(ssl, n)
            if err == SSL_ERROR_WANT_READ || err == SSL_ERROR_WANT_WRITE { break }
            if err == SSL_ERROR_ZERO_RETURN { break }  // close_notify
            throw .protocolFailure(openSSLErrorString())
        }
        plaintext = []  // no buffer held while idle
    }

    /// Encrypts plaintext into the write BIO.
    func send(_ bytes: UnsafeRawBufferPointer) throws(TLSError) {
        var offset = 0
        while offset < bytes.count {
            let n = SSL_write(ssl, bytes.baseAddress! + offset, Int32(min(bytes.count - offset, Int(Int32.max))))
            if n > 0 {
                offset += Int(n)
                continue
            }
            let err = SSL_get_error(ssl, n)
            if err == SSL_ERROR_WANT_READ || err == SSL_ERROR_WANT_WRITE { throw .protocolFailure("write before the handshake finished") }
            throw .protocolFailure(openSSLErrorString())
        }
    }

    /// Sends close_notify.
    func shutdown() { _ = SSL_shutdown(ssl) }

    /// Ciphertext waiting to be written to the socket.
    func takeOutput() -> [UInt8] {
        let pending = COpenSSL_BIO_ctrl_pending(writeBIO)
        guard pending > 0 else { return [] }
        return [UInt8](unsafeUninitializedCapacity: pending) { buffer, count in
            let n = BIO_read(writeBIO, buffer.baseAddress, Int32(pending))
            count = max(0, Int(n))
        }
    }
}
