#!/usr/bin/env bash
# Builds the container fetch: one fully static, stripped executable (no shared libraries, no
# loader), the whole root of a `FROM scratch` image with a CA bundle (README "Main job").
#
#   scripts/build-container-fetch.sh OUTDIR     writes OUTDIR/fetch and prints its size
#
# FoundationEssentials only (default traits off), Swift runtime and stdlib static
# (-static-executable), OpenSSL from Debian's libssl-dev libssl.a/libcrypto.a, -Osize, sections
# garbage-collected and identical code folded (--icf=safe, 0.14 MB) by the linker, symbols
# stripped. Scratch path .build-static (gitignored).
set -euo pipefail
[ $# = 1 ] || { echo "usage: $0 OUTDIR" >&2; exit 2; }
out=$1
cd "$(dirname "$0")/.."
for lib in libssl.a libcrypto.a libz.a; do
    [ -f /usr/lib/$(uname -m)-linux-gnu/$lib ] || { echo "$lib missing: apt-get install libssl-dev zlib1g-dev" >&2; exit 1; }
done
swift build -c release --product fetch --disable-default-traits --scratch-path .build-static \
    --static-swift-stdlib -Xswiftc -static-executable -Xswiftc -Osize \
    -Xlinker --gc-sections -Xlinker --icf=safe -Xlinker -Map=.build-static/fetch.map 2>&1 \
    | grep -vE '^(\[|Building|Compiling|Write|Planning|Linking)|statically linked applications requires at runtime|use of .mktemp. is dangerous' || true
bin=.build-static/release/fetch
[ -x "$bin" ] || { echo "build failed" >&2; exit 1; }
mkdir -p "$out"
strip --strip-all -o "$out/fetch" "$bin"
if readelf -l "$out/fetch" | grep -q INTERP || readelf -d "$out/fetch" | grep -q NEEDED; then
    echo "$out/fetch is not static" >&2; exit 1
fi
echo "$out/fetch: $(stat -c %s "$out/fetch") bytes, static, stripped (unstripped $(stat -c %s "$bin"))"
# Where the bytes go: code and data kept by the linker, per archive (from the link map).
python3 - .build-static/fetch.map <<'PY'
import re, sys, collections
sizes = collections.Counter()
section = None
current = ""
for line in open(sys.argv[1], errors="replace"):
    if line.startswith("Discarded input sections"): section = "discarded"
    elif line.startswith("Memory map"): section = "kept"
    if section != "kept": continue
    # An input section's name may stand on its own line, its address and size on the next.
    named = re.match(r"^ (\.\S+)", line)
    if named: current = named.group(1)
    m = re.match(r"^ (?:\.\S+)?\s+0x[0-9a-f]+\s+0x([0-9a-f]+)\s+(\S+\.(?:o|a)\S*)", line)
    if not m or current.startswith(".debug") or current.startswith(".comment"): continue
    size, obj = int(m.group(1), 16), m.group(2)
    name = re.sub(r"\(.*", "", obj.split("/")[-1])
    if "/fetch.build/" in obj or "/Client.build/" in obj or "/TLS.build/" in obj or "/Wire.build/" in obj or "/EventLoop.build/" in obj:
        name = "Lariat (" + obj.split("/")[-2].replace(".build", "") + ")"
    sizes[name] += size
total = sum(sizes.values())
for name, size in sizes.most_common(12):
    print(f"  {size/1e6:6.2f} MB  {name}")
print(f"  {total/1e6:6.2f} MB  total of kept sections (before stripping symbols)")
PY
