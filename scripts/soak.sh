#!/usr/bin/env bash
# The soak test (issue 14, README "Measured"): one lariat-soak process sends keep-alive requests,
# requests on new connections and new TLS handshakes through Session to nginx on loopback, with
# faults mixed in (resets, stalls past a 250 ms timeout, malformed and truncated responses, TLS
# handshakes reset or answered in plain HTTP, cancels at random points), then checks that every
# request ended as expected, descriptors and threads are back to their post-warm-up counts and RSS
# grew less than 1 MiB. Exits non-zero on any violated check.
#
#   scripts/soak.sh ci     8,000 keep-alive + 1,500 new-connection + 250 TLS (+ warm-up): ~1-2 min
#   scripts/soak.sh full   100,000 keep-alive + 10,000 new-connection + 1,000 TLS (+ warm-up)
#
# Environment: SOAK_BUILD=release builds and runs the release binary (default: debug, which
# scripts/test.sh has already built); SOAK_DIR (default .build-test/soak-nginx) holds nginx's files.
set -euo pipefail
cd "$(dirname "$0")/.."
root=$(pwd)

mode=${1:-ci}
case $mode in
    ci) sizes=(--keep-alive 8000 --new-connections 1500 --tls 250) ;;
    full) sizes=(--keep-alive 100000 --new-connections 10000 --tls 1000) ;;
    *) echo "usage: $0 ci|full" >&2; exit 2 ;;
esac

config=${SOAK_BUILD:-debug}
swift build -c "$config" --product lariat-soak >/dev/null
binary=$(swift build -c "$config" --show-bin-path)/lariat-soak

dir=${SOAK_DIR:-$root/.build-test/soak-nginx}
bash scripts/nginx.sh start "$dir" >/dev/null
cleanup() { bash "$root/scripts/nginx.sh" stop "$dir" >/dev/null || true; }
trap cleanup EXIT
http=$(cat "$dir/http.port")
https=$(cat "$dir/https.port")

echo "== soak ($mode, $config build) against nginx on 127.0.0.1:$http (http) and :$https (https)"
start=$(date +%s)
status=0
line_buffered=()
if command -v stdbuf >/dev/null; then line_buffered=(stdbuf -oL); fi
"${line_buffered[@]}" "$binary" --http "http://127.0.0.1:$http" --https "https://127.0.0.1:$https" --cacert "$(cat "$dir/ca.path")" \
    "${sizes[@]}" || status=$?
echo "soak took $(( $(date +%s) - start )) s (exit $status)"
exit $status
