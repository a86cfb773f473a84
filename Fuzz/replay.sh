#!/usr/bin/env bash
# Replays a target's corpus under AddressSanitizer: every file, once, no mutation.
#
#   Fuzz/replay.sh TARGET [DIR...]        default DIRs: corpus-work/TARGET corpus/TARGET FailCases/TARGET-*
#
# A campaign built without ASan (LARIAT_FUZZ_SANITIZER=none run.sh, 3 to 10 times the executions)
# sees only traps, oracle violations and timeouts; a read past an allocation that happens not to
# fault goes unnoticed. Replaying every input it kept under the ASan build (run.sh's default one,
# same oracles, LeakSanitizer at exit) gives each of them ASan's verdict. The inputs it did not keep
# reached no new coverage, so they took paths some kept input also takes.
#
# Prints the number of files replayed and the time; exits 1 on any report, 2 on bad usage or a
# failed build. The log is artifacts/TARGET/replay.log.
set -euo pipefail
[[ $# -ge 1 ]] || { echo "usage: $0 TARGET [DIR...]" >&2; exit 2; }
target=$1
shift
cd "$(dirname "${BASH_SOURCE[0]}")"
export SWIFT_BACKTRACE=enable=no

build=(swift build -c release -Xswiftc -sanitize=fuzzer,address -Xswiftc -parse-as-library -Xswiftc -enable-testing)
if ! "${build[@]}" --product "$target" >&2; then
    echo "replay $target: build failed" >&2
    exit 2
fi
binary="$("${build[@]}" --show-bin-path)/$target"

dirs=("$@")
[[ ${#dirs[@]} -gt 0 ]] || dirs=("corpus-work/$target" "corpus/$target")
artifacts="artifacts/$target"
mkdir -p "$artifacts"
log="$artifacts/replay.log"
list=$(mktemp)
trap 'rm -f "$list"' EXIT
find "${dirs[@]}" -maxdepth 1 -type f ! -name '.*' 2>/dev/null >"$list" || true
for crasher in FailCases/"$target"-*; do [[ -e "$crasher" ]] && echo "$crasher" >>"$list"; done
files=$(wc -l <"$list")

# Files as arguments: libFuzzer runs each one once (no merge, no deduplication, no size limit) and
# stops at the first report. xargs cuts the list into command lines of a safe length.
SECONDS=0
status=0
xargs -d '\n' -a "$list" "$binary" -timeout=10 -rss_limit_mb=2048 -artifact_prefix="$artifacts/replay-" >"$log" 2>&1 || status=$?
ran=$(grep -c '^Executed ' "$log" || true)
echo "replay $target (ASan): $ran of $files files in ${SECONDS}s"
if [[ $status -ne 0 || $ran -ne $files ]]; then
    echo "replay $target: FINDING or incomplete (status $status); end of $log:" >&2
    tail -n 40 "$log" >&2
    exit 1
fi
