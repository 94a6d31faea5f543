//===----------------------------------------------------------------------===//
//
// This source file is part of the Switchboard open source project
//
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//

#ifndef CVIPS_SHIM_H
#define CVIPS_SHIM_H
#include <vips/vips.h>

// libvips takes the optional arguments of its operations as a NULL-terminated variadic list, and VIPS_INIT is a
// macro: Swift can call neither, so each call the image pipeline makes is wrapped here with fixed arguments.
// Every function returning int returns 0 on success and -1 on failure (the message is then in libvips' error
// buffer), like libvips itself. Every VipsImage written to *out is a new reference the caller must unref.

/// VIPS_INIT: checks the library's ABI against these headers, then starts libvips. Call once per process.
static inline int CVips_init(const char *argv0) { return VIPS_INIT(argv0); }

static inline void CVips_ignore_log(const gchar *domain, GLogLevelFlags level, const gchar *message, gpointer data) {
    (void)domain;
    (void)level;
    (void)message;
    (void)data;
}

/// Drops libvips' (and libheif's, through it) GLib warnings: a broken upload would otherwise print "error in tile"
/// lines to stderr; the pipeline reports failures through the error buffer instead.
static inline void CVips_silence_warnings(void) {
    g_log_set_handler("VIPS", (GLogLevelFlags)(G_LOG_LEVEL_WARNING | G_LOG_LEVEL_MESSAGE | G_LOG_LEVEL_INFO |
                                               G_LOG_LEVEL_DEBUG), CVips_ignore_log, NULL);
}

/// Opens an image from memory, reading only its header (pixels are decoded on demand, once, top to bottom).
/// Fails on decode errors and truncation. The image reads `buf` without copying it: `buf` must outlive it.
/// Returns NULL on failure.
static inline VipsImage *CVips_header_from_buffer(const void *buf, size_t len) {
    return vips_image_new_from_buffer(buf, len, "", "access", VIPS_ACCESS_SEQUENTIAL, "fail_on", VIPS_FAIL_ON_ERROR,
                                      NULL);
}

/// Loads, auto-rotates by the EXIF orientation and shrinks (never enlarges) so that the longest side is at most
/// `size`, using the loader's shrink-on-load (JPEG DCT scaling, WebP scaling, HEIF embedded thumbnails).
/// With `to_srgb`, the embedded ICC profile is applied and the result is sRGB (`import_profile` is only the
/// fallback for images without a profile). Fails on decode errors and truncation when the pixels are computed.
/// `buf` must outlive `*out`.
/// libvips 8.14.1 does not hand thumbnail_buffer's own `fail_on` to the loader (a truncated JPEG then decodes with
/// a grey bottom and only a warning), so it also goes in the loader's option string.
static inline int CVips_thumbnail_buffer(const void *buf, size_t len, VipsImage **out, int size, int to_srgb) {
    if (to_srgb) {
        return vips_thumbnail_buffer((void *)buf, len, out, size, "height", size, "size", VIPS_SIZE_DOWN, "fail_on",
                                     VIPS_FAIL_ON_ERROR, "option_string", "fail_on=error", "import_profile", "srgb",
                                     "export_profile", "srgb", NULL);
    }
    return vips_thumbnail_buffer((void *)buf, len, out, size, "height", size, "size", VIPS_SIZE_DOWN, "fail_on",
                                 VIPS_FAIL_ON_ERROR, "option_string", "fail_on=error", NULL);
}

/// Loads a JPEG from memory, decoded at 1/`shrink` of its size (1, 2, 4 or 8: libjpeg's scaled DCT, much cheaper
/// than decoding in full and resizing). Reads top to bottom once; fails on decode errors and truncation when the
/// pixels are computed. `buf` must outlive `*out`.
static inline int CVips_jpegload_buffer(const void *buf, size_t len, VipsImage **out, int shrink) {
    return vips_jpegload_buffer((void *)buf, len, out, "shrink", shrink, "fail_on", VIPS_FAIL_ON_ERROR, "access",
                                VIPS_ACCESS_SEQUENTIAL, NULL);
}

/// vips_thumbnail_image with what CVips_thumbnail_buffer does after loading: rotation by the EXIF orientation,
/// shrinking (never enlarging) to `size`, and with `to_srgb` conversion through the embedded ICC profile.
static inline int CVips_thumbnail_upright(VipsImage *in, VipsImage **out, int size, int to_srgb) {
    if (to_srgb) {
        return vips_thumbnail_image(in, out, size, "height", size, "size", VIPS_SIZE_DOWN, "import_profile", "srgb",
                                    "export_profile", "srgb", NULL);
    }
    return vips_thumbnail_image(in, out, size, "height", size, "size", VIPS_SIZE_DOWN, NULL);
}

/// Shrinks (never enlarges) an already upright image so that its longest side is at most `size`.
static inline int CVips_thumbnail_image(VipsImage *in, VipsImage **out, int size) {
    return vips_thumbnail_image(in, out, size, "height", size, "size", VIPS_SIZE_DOWN, "no_rotate", TRUE, NULL);
}

/// Whether the image is 8-bit sRGB or 8-bit grey (with or without alpha): what the savers and the colour average
/// expect.
static inline int CVips_is_8bit_srgb_or_grey(VipsImage *in) {
    VipsInterpretation interpretation = vips_image_get_interpretation(in);
    return vips_image_get_format(in) == VIPS_FORMAT_UCHAR &&
           (interpretation == VIPS_INTERPRETATION_sRGB || interpretation == VIPS_INTERPRETATION_B_W);
}

/// Converts to 8-bit sRGB (CMYK, 16-bit, Lab and others).
static inline int CVips_to_8bit_srgb(VipsImage *in, VipsImage **out) {
    VipsImage *srgb = NULL;
    if (vips_colourspace(in, &srgb, VIPS_INTERPRETATION_sRGB, NULL) != 0) return -1;
    int result = vips_cast(srgb, out, VIPS_FORMAT_UCHAR, NULL);
    g_object_unref(srgb);
    return result;
}

/// Removes the alpha band by blending onto the colour (r, g, b), each 0-255.
static inline int CVips_flatten(VipsImage *in, VipsImage **out, double r, double g, double b) {
    double values[3] = {r, g, b};
    VipsArrayDouble *background = vips_array_double_new(values, 3);
    if (background == NULL) return -1;
    int result = vips_flatten(in, out, "background", background, NULL);
    vips_area_unref(VIPS_AREA(background));
    return result;
}

/// A copy of `in` (sharing its pixels) without any metadata item: EXIF, XMP, IPTC, ICC profile, orientation,
/// comments and loader-specific fields all go; the header (size, bands, format, interpretation) stays.
/// libvips 8.14.1's webpsave ignores `strip` and writes EXIF and XMP anyway, so metadata is removed from the image
/// itself rather than left to the savers.
static inline int CVips_copy_without_metadata(VipsImage *in, VipsImage **out) {
    if (vips_copy(in, out, NULL) != 0) return -1;
    gchar **fields = vips_image_get_fields(*out);
    for (int i = 0; fields[i] != NULL; i++) {
        // Header fields are not in the metadata table: removing them does nothing.
        vips_image_remove(*out, fields[i]);
    }
    g_strfreev(fields);
    return 0;
}

/// Encodes as lossy WebP. `*buf` is allocated with g_malloc: the caller frees it with g_free.
/// `strip` is passed on, but libvips 8.14.1 ignores it for WebP: see CVips_copy_without_metadata.
static inline int CVips_webpsave_buffer(VipsImage *in, void **buf, size_t *len, int quality, int effort, int strip) {
    return vips_webpsave_buffer(in, buf, len, "Q", quality, "effort", effort, "strip", strip ? TRUE : FALSE, NULL);
}

/// Encodes as baseline JPEG with optimised Huffman tables. `*buf` is allocated with g_malloc: the caller frees it
/// with g_free. With `strip`, no metadata (EXIF, XMP, IPTC, ICC) is written.
static inline int CVips_jpegsave_buffer(VipsImage *in, void **buf, size_t *len, int quality, int strip) {
    return vips_jpegsave_buffer(in, buf, len, "Q", quality, "optimize_coding", TRUE, "strip", strip ? TRUE : FALSE,
                                NULL);
}

#endif
