#!/usr/bin/env bash
# Alamofire API coverage: how many of Alamofire 5.12's public declarations Client provides with the
# same name, argument labels and types, and which are missing, by Alamofire source file.
#
#   bash scripts/api-coverage.sh [REFERENCE]
#
# Reads Client's symbol graph, extracted with swift-symbolgraph-extract from the module the last
# build produced (builds only the Client target if it is missing, so run after `swift build`).
# Declarations that cannot exist on Linux are listed, with reasons, in scripts/api-coverage-linux.txt.
# Missing declarations never fail this script; a broken extraction or comparison does.
set -euo pipefail
cd "$(dirname "$0")/.."
reference=${1:-${LARIAT_ALAMOFIRE_API:-../shared/reference/alamofire-5.12-public-api.txt}}
[ -f "$reference" ] || reference=/work/shared/reference/alamofire-5.12-public-api.txt
if [ ! -f "$reference" ]; then
    echo "api-coverage: reference list not found (pass its path or set LARIAT_ALAMOFIRE_API)" >&2
    exit 1
fi

bin=$(swift build --show-bin-path)
if [ ! -f "$bin/Modules/Client.swiftmodule" ]; then
    swift build --target Client >/dev/null
fi
out="$bin/api-coverage"
rm -rf "$out" && mkdir -p "$out"
triple=$(basename "$(dirname "$bin")")
swift-symbolgraph-extract -module-name Client -target "$triple" -I "$bin/Modules" \
    -Xcc -fmodule-map-file=Sources/COpenSSL/module.modulemap \
    -Xcc -fmodule-map-file=Sources/CLinux/module.modulemap \
    -Xcc -fmodule-map-file=Sources/CZlib/module.modulemap \
    -Xcc -fmodule-map-file=Sources/CDirent/module.modulemap \
    -minimum-access-level public -output-dir "$out"
python3 scripts/api-coverage.py "$reference" scripts/api-coverage-linux.txt "$out"
