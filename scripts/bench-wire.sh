#!/usr/bin/env bash
# Instructions per response head for wire-bench (a), under callgrind: repeatable where wall clock
# is not (2 shared cores). Runs (a) alone at two iteration counts and divides the difference, so
# start-up and the 1,000 warm-up heads cancel out.
#
#   scripts/bench-wire.sh [ITERATIONS]     default 10000 (and twice that)
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
n=${1:-10000}
swift build -c release --product wire-bench >&2
bench=.build/release/wire-bench
count() {
    valgrind --tool=callgrind --callgrind-out-file=/dev/null "$bench" --only head --iterations "$1" 2>&1 |
        sed -n 's/.*Collected : //p'
}
a=$(count "$n")
b=$(count $((2 * n)))
bytes=$("$bench" --iterations 1 | sed -n 's/^(a) head \([0-9]*\) B.*/\1/p')
per_head=$(( (b - a) / n ))
printf 'wire-bench (a): %d instructions per head, %d.%02d per byte (%d-byte head)\n' \
    "$per_head" $((per_head * 100 / bytes / 100)) $((per_head * 100 / bytes % 100)) "$bytes"
