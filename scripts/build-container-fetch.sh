#!/usr/bin/env bash
# Builds the container fetch: one fully static, stripped executable (no shared libraries, no
# loader), the whole root of a `FROM scratch` image with a CA bundle (README "Main job").
#
#   scripts/build-container-fetch.sh OUTDIR     writes OUTDIR/fetch and prints its size
#
# FoundationEssentials only (default traits off), Swift runtime and stdlib static
# (-static-executable), OpenSSL from Debian's libssl-dev libssl.a/libcrypto.a, -Osize, sections
# garbage-collected by the linker, symbols stripped. Scratch path .build-static (gitignored).
set -euo pipefail
[ $# = 1 ] || { echo "usage: $0 OUTDIR" >&2; exit 2; }
out=$1
cd "$(dirname "$0")/.."
for lib in libssl.a libcrypto.a; do
    [ -f /usr/lib/$(uname -m)-linux-gnu/$lib ] || { echo "$lib missing: apt-get install libssl-dev" >&2; exit 1; }
done
swift build -c release --product fetch --disable-default-traits --scratch-path .build-static \
    --static-swift-stdlib -Xswiftc -static-executable -Xswiftc -Osize \
    -Xlinker --gc-sections 2>&1 | grep -vE '^(\[|Building|Compiling|Write|Planning|Linking)' | grep -v 'statically linked applications requires at runtime' || true
bin=.build-static/release/fetch
[ -x "$bin" ] || { echo "build failed" >&2; exit 1; }
mkdir -p "$out"
strip --strip-all -o "$out/fetch" "$bin"
if file "$out/fetch" | grep -q dynamic || ldd "$out/fetch" >/dev/null 2>&1; then
    echo "$out/fetch is not static" >&2; exit 1
fi
echo "$out/fetch: $(stat -c %s "$out/fetch") bytes, static, stripped (unstripped $(stat -c %s "$bin"))"
