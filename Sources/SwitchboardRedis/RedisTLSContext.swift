//===----------------------------------------------------------------------===//
//
// This source file is part of the Switchboard open source project
//
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//

import COpenSSL

/// The client side `SSL_CTX` for `rediss://`: TLS 1.2 and 1.3, the CA file or the system's trust store.
final class RedisTLSContext: @unchecked Sendable {
    // @unchecked Sendable: the SSL_CTX is configured in init and only read afterwards (SSL_new from any thread).
    let context: OpaquePointer

    init(configuration: RedisConfiguration) throws(RedisError) {
        guard let ctx = SSL_CTX_new(TLS_client_method()) else {
            throw .invalidConfiguration("TLS: \(redisOpenSSLError())")
        }
        context = ctx
        guard COpenSSL_SSL_CTX_set_min_proto_version(ctx, COpenSSL_TLS1_2_VERSION()) == 1,
            COpenSSL_SSL_CTX_set_max_proto_version(ctx, COpenSSL_TLS1_3_VERSION()) == 1
        else { throw .invalidConfiguration("TLS: \(redisOpenSSLError())") }
        // SSL_write is retried with the same arguments after WANT_WRITE; the buffer may move between attempts.
        _ = COpenSSL_SSL_CTX_set_mode(ctx, Int(SSL_MODE_ACCEPT_MOVING_WRITE_BUFFER))
        if let caFile = configuration.caFile {
            guard SSL_CTX_load_verify_locations(ctx, caFile, nil) == 1 else {
                throw .invalidConfiguration("TLS CA file \(caFile): \(redisOpenSSLError())")
            }
        } else {
            SSL_CTX_set_default_verify_paths(ctx)
        }
        SSL_CTX_set_verify(ctx, configuration.verifyCertificate ? SSL_VERIFY_PEER : SSL_VERIFY_NONE, nil)
    }

    deinit { SSL_CTX_free(context) }
}
