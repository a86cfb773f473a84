#!/usr/bin/env bash
# Builds the minimal-container fetch (no default traits: FoundationEssentials only, static Swift
# stdlib, stripped) and fails if it links Foundation, FoundationNetworking or libcurl, or any
# package of the ecosystem products (swift-log, swift-metrics, tracing, http-types, OpenAPI).
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

# `import Client` pulls in none of the ecosystem products' packages (README "In the ecosystem"):
# the minimal fetch's link map (SwiftPM's list of the objects it links) names no object of
# theirs, and its symbols no module of theirs. The same pattern must find them in a binary that
# does link them (lariat-openapi-probe, built by the minimal test step before this), so the
# check cannot pass by matching nothing.
ecosystem_objects='/(ClientObservability|LariatOpenAPI|Logging|CoreMetrics|Metrics|Tracing|Instrumentation|ServiceContextModule|InMemoryTracing|HTTPTypes|OpenAPIRuntime)\.build/'
ecosystem_symbols='\$s(19ClientObservability|13LariatOpenAPI|7Logging|11CoreMetrics|7Metrics|7Tracing|15Instrumentation|9HTTPTypes|14OpenAPIRuntime)[0-9]'
link_map=.build-minimal-release/release/fetch.product/Objects.LinkFileList
[ -s "$link_map" ] || { echo "no link map at $link_map" >&2; exit 1; }
echo "fetch link map: $(grep -oE '/[A-Za-z0-9_-]+\.build/' "$link_map" | sort -u | tr -d / | tr '\n' ' ')"
if grep -E "$ecosystem_objects" "$link_map" >/dev/null; then
    echo "the minimal Client build links an ecosystem package:" >&2
    grep -oE "$ecosystem_objects" "$link_map" | sort -u >&2
    exit 1
fi
if nm "$bin" 2>/dev/null | grep -E "$ecosystem_symbols" >/dev/null; then
    echo "fetch contains symbols of an ecosystem package" >&2
    exit 1
fi
control=.build-minimal/debug/lariat-openapi-probe.product/Objects.LinkFileList
if [ -s "$control" ]; then
    grep -E "$ecosystem_objects" "$control" >/dev/null || { echo "the link-map check finds nothing in $control" >&2; exit 1; }
    echo "control: the same check finds the packages in lariat-openapi-probe's link map"
fi
echo "Client (minimal) links no ecosystem package"
