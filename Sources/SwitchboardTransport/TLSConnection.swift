//===----------------------------------------------------------------------===//
//
// This source file is part of the Switchboard open source project
//
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//

import COpenSSL

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
            if err == SSL_ERROR_WANT_READ || err == SSL_ERROR_WANT_WRITE {
                throw .protocolFailure("write before the handshake finished")
            }
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
