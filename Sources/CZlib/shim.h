#ifndef CZLIB_SHIM_H
#define CZLIB_SHIM_H
#include <zlib.h>

/// deflateInit2 is a macro; Swift cannot call it. Raw deflate (negative window bits) for RFC 7692.
static inline int CZlib_deflateInit2(z_streamp strm, int level, int windowBits, int memLevel) {
    return deflateInit2(strm, level, Z_DEFLATED, windowBits, memLevel, Z_DEFAULT_STRATEGY);
}

/// inflateInit2 is a macro; Swift cannot call it.
static inline int CZlib_inflateInit2(z_streamp strm, int windowBits) {
    return inflateInit2(strm, windowBits);
}
#endif
