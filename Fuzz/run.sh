#!/usr/bin/env bash
# Builds one libFuzzer target and runs it for a fixed time.
#
#   Fuzz/run.sh TARGET SECONDS [libFuzzer flags…]     TARGET: see TARGETS below
#
# The run starts from a work copy of the corpus (Fuzz/corpus-work/TARGET, gitignored), seeded from
# the committed corpus (Fuzz/corpus/TARGET) and this target's minimized crashers (Fuzz/FailCases/TARGET-*),
# which libFuzzer therefore replays before it mutates anything. Findings go to Fuzz/artifacts/TARGET/
# (gitignored), the full log to Fuzz/artifacts/TARGET/last-run.log.
#
# Prints the number of executions and the final coverage; exits 1 on any finding (crash, oracle
# violation, leak, timeout, out-of-memory), 2 on bad usage or a failed build.
#
# LARIAT_FUZZ_SANITIZER=none builds without AddressSanitizer (`-sanitize=fuzzer` only, scratch path
# .build-fuzzer) for long campaigns: ASan costs 3 to 10 times the executions. Such a run proves
# nothing about memory safety by itself: replay its corpus under ASan afterwards (replay.sh, which
# long-run.sh calls), so every input it kept gets AddressSanitizer's verdict.
set -euo pipefail

TARGETS="parser chunked serializer chunkedencode host disposition multipart form pem certificate chain crl ocsp pkcs12"
TARGETS="$TARGETS websocket"  # WebSocket frames (RFC 6455), Sources/websocket
usage() {
    echo "usage: $0 TARGET SECONDS [libFuzzer flags...]; TARGET: ${TARGETS// /|}" >&2
    exit 2
}
[[ $# -ge 2 ]] || usage
target=$1
seconds=$2
shift 2
[[ " $TARGETS " == *" $target "* ]] || usage
[[ "$seconds" =~ ^[1-9][0-9]*$ ]] || usage  # libFuzzer reads 0 as "no limit"

cd "$(dirname "${BASH_SOURCE[0]}")"
# A trap is a finding for libFuzzer to record; the Swift runtime backtracer would only race it.
export SWIFT_BACKTRACE=enable=no

# The flags reach every Swift module, the Lariat package included, so Wire is instrumented.
# `-enable-testing` lets the Client targets `@testable import` the internal parsers they fuzz.
case ${LARIAT_FUZZ_SANITIZER:-address} in
    address) build=(swift build -c release -Xswiftc -sanitize=fuzzer,address -Xswiftc -parse-as-library -Xswiftc -enable-testing) ;;
    none) build=(swift build -c release -Xswiftc -sanitize=fuzzer -Xswiftc -parse-as-library -Xswiftc -enable-testing --scratch-path .build-fuzzer) ;;
    *) echo "LARIAT_FUZZ_SANITIZER: address or none" >&2; exit 2 ;;
esac
if ! "${build[@]}" --product "$target" >&2; then
    echo "fuzz $target: build failed" >&2
    exit 2
fi
binary="$("${build[@]}" --show-bin-path)/$target"

work="corpus-work/$target"
artifacts="artifacts/$target"
mkdir -p "$work" "$artifacts"
for crasher in FailCases/"$target"-*; do
    [[ -e "$crasher" ]] && cp -f "$crasher" "$work/"
done
findings() { find "$artifacts" -maxdepth 1 -type f \( -name 'crash-*' -o -name 'leak-*' -o -name 'timeout-*' -o -name 'oom-*' \) | wc -l; }
before=$(findings)

# A target's own dictionary (Fuzz/TARGET.dict) when it has one, DER fragments for the X.509
# targets, else the HTTP tokens.
dict=http.dict
[[ " certificate chain crl ocsp pkcs12 " == *" $target "* ]] && dict=der.dict
[[ -f "$target.dict" ]] && dict="$target.dict"

log="$artifacts/last-run.log"
status=0
SECONDS=0
"$binary" -max_total_time="$seconds" -dict="$dict" -artifact_prefix="$artifacts/" \
    -timeout=10 -rss_limit_mb=2048 -print_final_stats=1 "$@" "$work" "corpus/$target" >"$log" 2>&1 || status=$?

executions=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log" | tail -1)
last=$(grep -E '^#[0-9]+' "$log" | tail -1 || true)
coverage=$(grep -oE 'cov: [0-9]+ ft: [0-9]+ corp: [0-9]+/[0-9]+[a-zA-Z]*' <<<"$last" || true)
echo "fuzz $target (${LARIAT_FUZZ_SANITIZER:-address}): ${executions:-0} executions in ${SECONDS}s; ${coverage:-no coverage line}"

if [[ $status -ne 0 || $(findings) -gt $before ]]; then
    echo "fuzz $target: FINDING (libFuzzer exit status $status); end of $log:" >&2
    tail -n 60 "$log" >&2
    echo "newest artifacts:" >&2
    ls -t "$artifacts" | grep -E '^(crash|leak|timeout|oom)-' | head -n 5 | sed "s|^|  $artifacts/|" >&2 || true
    exit 1
fi
