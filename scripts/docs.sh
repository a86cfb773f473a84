#!/usr/bin/env bash
# Converts Client's DocC catalog (Sources/Client/Client.docc) with the toolchain's docc, warnings
# as errors: a link to a symbol that does not exist, or an ambiguous one, fails the step.
#
#   bash scripts/docs.sh [OUTPUT]       default .build-test/Client.doccarchive
#
# Reads the symbol graph of the Client module the last `swift build` produced (as
# scripts/api-coverage.sh does; builds only the Client target if it is missing), so it adds no
# build of its own: seconds after `swift build`. To browse the documentation, use
# swift-docc-plugin instead (Documentation/Testing.md "Documentation"):
#   LARIAT_DOCC=1 swift package --disable-sandbox preview-documentation --target Client
set -euo pipefail
cd "$(dirname "$0")/.."
output=${1:-.build-test/Client.doccarchive}
bin=$(swift build --show-bin-path)
if [ ! -f "$bin/Modules/Client.swiftmodule" ]; then
    swift build --target Client >/dev/null
fi
symbols="$bin/docs-symbol-graphs"
rm -rf "$symbols" && mkdir -p "$symbols" "$(dirname "$output")"
triple=$(basename "$(dirname "$bin")")
# Public and open symbols only: the catalog documents what `import Client` offers. Extensions of
# other modules' types (Foundation's CharacterSet, Swift's Result...) as extension blocks, as
# swift-docc-plugin extracts them, so both report the same warnings. The Transport types that
# Exports.swift re-exports (TransportError, ProxyServer, ProxyError, HostResolver) are part of
# what `import Client` offers, so their symbols are extracted with Client's.
swift-symbolgraph-extract -module-name Client -target "$triple" -I "$bin/Modules" \
    -Xcc -fmodule-map-file=Sources/COpenSSL/module.modulemap \
    -Xcc -fmodule-map-file=Sources/CLinux/module.modulemap \
    -Xcc -fmodule-map-file=Sources/CZlib/module.modulemap \
    -Xcc -fmodule-map-file=Sources/CDirent/module.modulemap \
    -experimental-allowed-reexported-modules=Transport \
    -minimum-access-level public -skip-inherited-docs -emit-extension-block-symbols -output-dir "$symbols"
docc convert Sources/Client/Client.docc --additional-symbol-graph-dir "$symbols" \
    --fallback-display-name Client --fallback-bundle-identifier org.lariat.Client \
    --output-path "$output" --warnings-as-errors
echo "docs: $output"
