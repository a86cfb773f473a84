#!/usr/bin/env bash
# The long campaign: every target (or the ones named) until it has executed 10 million inputs,
# then the inputs that found new coverage are merged into its committed corpus and committed.
#
#   Fuzz/long-run.sh [TARGET...]          LARIAT_FUZZ_RUNS=N overrides the 10,000,000 executions
#   LARIAT_FUZZ_SANITIZER=none Fuzz/long-run.sh [TARGET...]
#                                         without AddressSanitizer (3 to 10 times faster), then
#                                         every input of the work corpus replayed under ASan
#
# Each target runs through run.sh (same build, flags, dictionaries, artifact handling), with
# `-runs` as the stop condition and a one-day time cap. The merge (`-merge=1 corpus/T
# corpus-work/T`) keeps every committed seed, named ones included, and adds only inputs that
# reach coverage the corpus lacks, so the committed corpus stays minimal. A finding stops the
# campaign before anything is committed: minimize it and file it under FailCases/ (README.md).
# Measured rates and the time each target needs are in README.md ("Long runs").
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")"

all=(parser chunked serializer chunkedencode host disposition multipart form pem certificate chain crl ocsp pkcs12)
all+=(websocket)  # WebSocket frames (RFC 6455)
runs=${LARIAT_FUZZ_RUNS:-10000000}
targets=("$@")
[[ ${#targets[@]} -gt 0 ]] || targets=("${all[@]}")

# The same build as run.sh's: the fuzzer-only one (LARIAT_FUZZ_SANITIZER=none) has its own scratch path.
if [[ ${LARIAT_FUZZ_SANITIZER:-address} == none ]]; then
    build=(swift build -c release -Xswiftc -sanitize=fuzzer -Xswiftc -parse-as-library -Xswiftc -enable-testing --scratch-path .build-fuzzer)
else
    build=(swift build -c release -Xswiftc -sanitize=fuzzer,address -Xswiftc -parse-as-library -Xswiftc -enable-testing)
fi
export SWIFT_BACKTRACE=enable=no

for target in "${targets[@]}"; do
    echo "== $target: $runs executions"
    bash run.sh "$target" 86400 -runs="$runs"
    # Without ASan, nothing counts until every kept input has passed under it.
    if [[ ${LARIAT_FUZZ_SANITIZER:-address} == none ]]; then bash replay.sh "$target"; fi
    binary="$("${build[@]}" --show-bin-path)/$target"
    before=$(find "corpus/$target" -type f | wc -l)
    "$binary" -merge=1 -rss_limit_mb=2048 "corpus/$target" "corpus-work/$target" >"artifacts/$target/merge.log" 2>&1
    after=$(find "corpus/$target" -type f | wc -l)
    echo "== $target: corpus $before -> $after files"
    if [[ $after -ne $before ]]; then
        git add -A "corpus/$target"
        git commit -q -m "Fuzz: merge the $target corpus after $runs executions ($before -> $after files)" -- "corpus/$target"
    fi
done
