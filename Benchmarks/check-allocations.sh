#!/usr/bin/env bash
# Builds and runs the micro benchmarks (Benchmarks/Benchmarks/*, package-benchmark) and fails if an
# allocation count regressed beyond its stored threshold (Benchmarks/Thresholds/<swift major.minor>/,
# one JSON per benchmark with its p90 mallocs per iteration; the tolerance is in each benchmark's
# configuration: exact for Wire, 1 per encoding or request for Client). Only mallocs are gated:
# they are stable on a noisy machine, times are not.
#
#   Benchmarks/check-allocations.sh            check (CI: scripts/test.sh)
#   Benchmarks/check-allocations.sh --update   rewrite the thresholds from a run here, then review
#                                              and commit the JSON diff
#
# Builds only the benchmark executables and what they need (package-benchmark's tool, Lariat's
# Wire and Client), never the peers or async-http-client. Exit status: 0 ok (also when only
# improvements were found: it says to tighten the thresholds), 1 regression, missing thresholds
# or a failed build/run; 2 usage.
set -uo pipefail
cd "$(dirname "$0")/.."
root=$(pwd)

mode=check
case "${1:-}" in
    "") ;;
    --update) mode=update ;;
    *) echo "usage: $0 [--update]" >&2; exit 2 ;;
esac

swift_version=$(swift --version 2>/dev/null | sed -nE 's/.*Swift version ([0-9]+\.[0-9]+).*/\1/p' | head -1)
thresholds="$root/Benchmarks/Thresholds/$swift_version"

if [ $mode = update ]; then
    mkdir -p "$thresholds"
    # --metric: the JSON files hold mallocs only, the one metric CI gates on.
    swift package --package-path Benchmarks --allow-writing-to-package-directory \
        benchmark thresholds update --path "$thresholds" --metric mallocCountTotal --no-progress
    status=$?
    [ $status = 0 ] && git -C "$root" status --short -- "$thresholds"
    exit $status
fi

if ! ls "$thresholds"/*.p90.json >/dev/null 2>&1; then
    echo "no allocation thresholds for Swift $swift_version in $thresholds:" >&2
    echo "run $0 --update on a quiet machine, review and commit them" >&2
    exit 1
fi

log=$(mktemp)
trap 'rm -f "$log"' EXIT
swift package --package-path Benchmarks benchmark thresholds check --path "$thresholds" --no-progress 2>&1 | tee "$log"
status=${PIPESTATUS[0]}
# The plugin reports every outcome as exit status 1 and names it on its last line
# ("error: benchmarkThresholdRegression", "...Improvement"), so read that.
if [ "$status" = 0 ]; then
    echo "allocation check: every benchmark within its threshold"
elif grep -q "benchmarkThresholdRegression" "$log"; then
    echo "allocation check FAILED: allocations regressed (table above); if intended: $0 --update" >&2
    status=1
elif grep -q "benchmarkThresholdImprovement" "$log"; then
    echo "allocation check: only improvements (table above); tighten with: $0 --update, commit the JSON"
    status=0
else
    echo "allocation check FAILED: the benchmarks did not build or run (exit $status)" >&2
    status=1
fi
exit $status
