#!/usr/bin/env bash
# The README's main job on a fresh machine: builds the minimal fetch (FoundationEssentials only,
# static Swift stdlib), starts httpbin on loopback and fetches a URL from it. Extra arguments are
# passed to fetch (default: -i <httpbin>/get?from=lariat).
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/install-test-deps.sh >/dev/null
swift build -c release --disable-default-traits --static-swift-stdlib --scratch-path .build-minimal-release --product fetch
bash scripts/httpbin.sh start >/dev/null
trap 'bash scripts/httpbin.sh stop >/dev/null' EXIT
base="http://127.0.0.1:$(cat .build-test/httpbin.port)"
if [ $# -eq 0 ]; then set -- -i "$base/get?from=lariat"; fi
.build-minimal-release/release/fetch "${@//\{httpbin\}/$base}"
