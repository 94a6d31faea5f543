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

/// Serving the web app (`docs/web.md`): which folder, its limits, how often it is re-read.
public struct WebConfiguration: Sendable {
    /// The folder served at `/` (absolute, or relative to the working directory); nil serves nothing (404, as
    /// without a web app).
    public var root: String? = nil
    /// Largest file served; larger ones are left out with a warning when the folder is read.
    public var maxFileBytes: Int = 4 << 20
    /// Largest total of the files' bytes (identity forms); files past it are left out with a warning.
    public var maxTotalBytes: Int = 64 << 20
    /// Most files (and folders) read from the root; the rest are left out with a warning.
    public var maxFiles: Int = 4096
    /// Deepest folder nesting read below the root.
    public var maxDepth: Int = 16
    /// Seconds between checks of the files' modification times (changed files are re-read); 0 reads once.
    public var refreshInterval: Double = 1
    /// Compressible files at least this large also get a gzip form.
    public var gzipMinBytes: Int = 1024
    /// The `Content-Security-Policy` of every file served.
    public var contentSecurityPolicy =
        "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data: blob:; media-src 'self' blob:; "
        + "connect-src 'self'; object-src 'none'; base-uri 'none'; frame-ancestors 'none'; form-action 'self'"

    public init() {}
}
