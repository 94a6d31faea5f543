//===----------------------------------------------------------------------===//
//
// This source file is part of the Switchboard open source project
//
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//

internal import CVips

/// Owns one reference to a `VipsImage` and drops it (`g_object_unref`) exactly once, in `deinit`.
///
/// Not Sendable: an image lives inside one ``ImagePipeline`` call, on one thread.
final class VipsImageRef {
    let pointer: UnsafeMutablePointer<VipsImage>

    /// Takes over a reference the caller owns.
    init(taking pointer: UnsafeMutablePointer<VipsImage>) {
        self.pointer = pointer
    }

    deinit {
        g_object_unref(pointer)
    }

    /// Runs a libvips operation that writes a new image to its `out` argument and returns 0 on success.
    static func make(
        _ operation: (UnsafeMutablePointer<UnsafeMutablePointer<VipsImage>?>) -> Int32
    ) throws(VipsFailure) -> VipsImageRef {
        var out: UnsafeMutablePointer<VipsImage>?
        let status = operation(&out)
        guard status == 0, let out else {
            if let out { g_object_unref(out) }
            throw VipsFailure(message: VipsRuntime.takeError())
        }
        return VipsImageRef(taking: out)
    }

    /// Opens an image from memory with libvips, reading its header only (`CVips_header_from_buffer`); only the four
    /// loaders ``VipsRuntime/allowedLoaders`` can open anything. `bytes` must outlive the image.
    static func header(of bytes: UnsafeRawBufferPointer) throws(VipsFailure) -> VipsImageRef {
        if let failure = VipsRuntime.startupFailure { throw VipsFailure(message: failure) }
        guard let base = bytes.baseAddress, let image = CVips_header_from_buffer(base, bytes.count) else {
            throw VipsFailure(message: VipsRuntime.takeError())
        }
        return VipsImageRef(taking: image)
    }

    var width: Int { Int(vips_image_get_width(pointer)) }
    var height: Int { Int(vips_image_get_height(pointer)) }
    var bands: Int { Int(vips_image_get_bands(pointer)) }
    var hasAlpha: Bool { vips_image_hasalpha(pointer) != 0 }
    /// Whether the EXIF orientation (5-8) swaps width and height.
    var orientationSwapsSides: Bool { vips_image_get_orientation_swap(pointer) != 0 }
    /// Whether an ICC profile is attached.
    var hasICCProfile: Bool { vips_image_get_typeof(pointer, "icc-profile-data") != 0 }

    /// Decodes the whole image into memory now (so it can be read several times); decode errors surface here.
    func copiedToMemory() throws(VipsFailure) -> VipsImageRef {
        guard let copy = vips_image_copy_memory(pointer) else { throw VipsFailure(message: VipsRuntime.takeError()) }
        return VipsImageRef(taking: copy)
    }

    /// The pixels, band-interleaved, in the image's own format; the libvips buffer is freed before returning.
    func pixels() throws(VipsFailure) -> [UInt8] {
        var size = 0
        guard let memory = vips_image_write_to_memory(pointer, &size) else {
            throw VipsFailure(message: VipsRuntime.takeError())
        }
        defer { g_free(memory) }
        return Array(UnsafeRawBufferPointer(start: memory, count: size))
    }

    /// Runs a saver that writes a g_malloc'd buffer; copies it out and g_frees it exactly once.
    func encoded(
        _ saver: (
            _ image: UnsafeMutablePointer<VipsImage>, _ buffer: UnsafeMutablePointer<UnsafeMutableRawPointer?>,
            _ length: UnsafeMutablePointer<Int>
        ) -> Int32
    ) throws(VipsFailure) -> [UInt8] {
        var buffer: UnsafeMutableRawPointer?
        var length = 0
        let status = saver(pointer, &buffer, &length)
        defer { if let buffer { g_free(buffer) } }
        guard status == 0, let buffer, length > 0 else { throw VipsFailure(message: VipsRuntime.takeError()) }
        return Array(UnsafeRawBufferPointer(start: buffer, count: length))
    }
}
