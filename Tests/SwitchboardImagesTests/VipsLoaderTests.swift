//===----------------------------------------------------------------------===//
//
// This source file is part of the Switchboard open source project
//
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//

import Testing

@testable import SwitchboardImages

@Suite("libvips loaders: only JPEG, PNG, WebP and HEIF can open anything")
struct VipsLoaderTests {
    @Test("TIFF and GIF are refused by libvips itself, not only by the sniffer")
    func blocked() throws {
        let fixtures = try Fixtures.get()
        for name in ["corner.tif", "corner.gif"] {
            let bytes = try fixtures.bytes(name)
            let message = bytes.withUnsafeBytes { raw -> String? in
                do throws(VipsFailure) {
                    _ = try VipsImageRef.header(of: raw)
                    return nil
                } catch {
                    return error.message
                }
            }
            #expect(message?.contains("blocked") == true, "\(name): \(message ?? "opened")")
        }
        for name in ["photo.jpg", "alpha.png", "corner.webp", "corner.heic"] {
            let bytes = try fixtures.bytes(name)
            let width = bytes.withUnsafeBytes { raw in try? VipsImageRef.header(of: raw).width }
            #expect(width != nil, "\(name) did not open")
        }
    }
}
