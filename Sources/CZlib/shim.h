// The system zlib (Debian zlib1g-dev) for Swift: response-body decoding (gzip, zlib and raw
// deflate) and DeflateRequestCompressor.
//
// `inflateInit2` and `deflateInit2` are macros that pass the library's version and
// `sizeof(z_stream)` to the real entry points, so Swift cannot call them. Each wrapper below
// expands exactly one macro; nothing here adds behaviour.
#ifndef LARIAT_CZLIB_SHIM_H
#define LARIAT_CZLIB_SHIM_H

#include <zlib.h>

static inline int lariat_inflateInit2(z_streamp stream, int windowBits) {
    return inflateInit2(stream, windowBits);
}

static inline int lariat_deflateInit2(z_streamp stream, int level, int windowBits, int memLevel, int strategy) {
    return deflateInit2(stream, level, Z_DEFLATED, windowBits, memLevel, strategy);
}

#endif
