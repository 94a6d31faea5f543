//===----------------------------------------------------------------------===//
//
// This source file is part of the Switchboard open source project
//
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//

import Dispatch
import Foundation
import Logging
import SwitchboardCore
import SwitchboardDomain
import SwitchboardWebSocket

#if canImport(Glibc)
import Glibc
#endif

/// One file of the web app as served: its content, gzip form and entity tags, computed off the loops.
final class WebFile: Sendable {
    let contentType: String
    let body: [UInt8]
    let etag: String
    /// The gzip form, when the type compresses, the file is at least `gzipMinBytes` long and gzip made it smaller.
    let gzipBody: [UInt8]?
    /// The gzip form's own strong tag (a different representation).
    let gzipETag: String?
    /// What the file was on disk when it was read.
    let signature: FileSignature

    init(path: String, body: [UInt8], signature: FileSignature, gzipMinBytes: Int) {
        let (type, compressible) = HTTPStatic.contentType(forPath: path)
        contentType = type
        self.body = body
        self.signature = signature
        etag = HTTPStatic.entityTag(for: body)
        if compressible, body.count >= gzipMinBytes, let gz = HTTPStatic.gzip(body), gz.count < body.count {
            gzipBody = gz
            gzipETag = HTTPStatic.entityTag(for: body, suffix: "-gz")
        } else {
            gzipBody = nil
            gzipETag = nil
        }
    }
}
