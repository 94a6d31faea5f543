//===----------------------------------------------------------------------===//
//
// This source file is part of the Switchboard open source project
//
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//

internal import CVips

/// libvips' process-wide state: started once, on first use, with settings that bound each operation's memory.
enum VipsRuntime {
    /// `nil` once libvips has started; otherwise why it could not. A global `let` is initialised exactly once and
    /// thread-safely (swift_once), so concurrent first calls from worker queues are safe.
    static let startupFailure: String? = start()

    /// The loader classes the pipeline may use. Every other loader (SVG, PDF, TIFF, FITS, ImageMagick, ...) is
    /// blocked process-wide, so that even a misrecognised upload can reach no other parser.
    static let allowedLoaders = [
        "VipsForeignLoadJpeg", "VipsForeignLoadPng", "VipsForeignLoadWebp", "VipsForeignLoadHeif",
    ]

    private static func start() -> String? {
        if CVips_init("switchboard") != 0 { return "libvips did not start: \(takeError())" }
        // No operation cache: every upload is different, and the cache would keep decoded images alive.
        vips_cache_set_max(0)
        vips_cache_set_max_mem(0)
        vips_cache_set_max_files(0)
        // One worker thread per pipeline: the server runs uploads in parallel on its own bounded worker pool.
        vips_concurrency_set(1)
        vips_block_untrusted_set(1)
        vips_operation_block_set("VipsForeignLoad", 1)
        for loader in allowedLoaders { vips_operation_block_set(loader, 0) }
        CVips_silence_warnings()
        return nil
    }

    /// Takes (and clears) libvips' error buffer, shortened to one line of at most 300 characters.
    ///
    /// The buffer is process-wide: with several pipelines failing at once, a message can include another's. It is
    /// for logs only.
    static func takeError() -> String {
        guard let copy = vips_error_buffer_copy() else { return "unknown libvips error" }
        defer { g_free(copy) }
        let text = String(cString: copy).split(whereSeparator: \.isNewline).joined(separator: "; ")
        if text.isEmpty { return "unknown libvips error" }
        return text.count > 300 ? String(text.prefix(300)) + "..." : text
    }
}
