#!/usr/bin/env bash
# Builds the minimal-container fetch (no default traits: FoundationEssentials only, static Swift
# stdlib, stripped) and fails if it links Foundation, FoundationNetworking or libcurl.
set -euo pipefail
cd "$(dirname "$0")/.."
swift build -c release --disable-default-traits --static-swift-stdlib --scratch-path .build-minimal-release --product fetch >/dev/null
bin=.build-minimal-release/release/fetch
strip -o .build-minimal-release/fetch-stripped "$bin"
libs=$(ldd "$bin" | awk '{print $1}')
echo "fetch links: $(echo $libs | tr '\n' ' ')"
echo "fetch size (stripped): $(stat -c %s .build-minimal-release/fetch-stripped) bytes"
if echo "$libs" | grep -E "Foundation|curl" >/dev/null; then
    echo "fetch links Foundation, FoundationNetworking or libcurl" >&2
    exit 1
fi
if nm "$bin" 2>/dev/null | grep -q "s10Foundation"; then
    echo "fetch contains full Foundation symbols" >&2
    exit 1
fi
