#!/usr/bin/env bash
# The test suites under AddressSanitizer and ThreadSanitizer (issue 14, README "Measured").
#
#   scripts/sanitizers.sh address   build with --sanitize=address into .build-asan, run the suites
#   scripts/sanitizers.sh thread    build with --sanitize=thread into .build-tsan, run the suites
#   scripts/sanitizers.sh all       both (the default)
#
# Suites: WireTests, EventLoopTests, TLSTests, TransportTests, ClientTests and FetchTests
# (SANITIZER_FILTER overrides the --filter regex). Any report fails the run: ASan aborts on its
# first error; TSan exits 66 at the end when it reported anything (halt_on_error=0 so one run
# lists every race). Failed tests with no report get one more run, printed FLAKY if it passes.
# Suppressions, each with its reason, are in scripts/sanitizers/*.supp. Tests that need httpbin
# run when LARIAT_HTTPBIN is set (scripts/test.sh sets it) and skip otherwise.
# LeakSanitizer is off (detect_leaks=0): the Swift runtime keeps type metadata, conformance caches
# and once-initialised globals for the life of the process on purpose, which LSan reports as leaks;
# leaks are measured by the soak instead (scripts/soak.sh: descriptors, RSS, threads). One more such
# report (issue 18): fetch under ASan with detect_leaks=1 exits 1 on 32 bytes, the weak-reference
# side table of a pool still alive at exit, which LSan cannot see (sanitizers/lsan-weak-side-table.swift
# reproduces it without Lariat). No suppression for it: `leak:formWeakReference` would also hide a
# really leaked object that has a side table (the table points back to it).
set -euo pipefail
cd "$(dirname "$0")/.."
root=$(pwd)

# Three runs by default. Fetch's suites wait for child processes and would otherwise hold the
# cooperative pool's threads while the other suites' real-time bounds run (as in scripts/test.sh).
# The loop's own suites run apart from Transport's and Client's: with those hundreds of tests
# queued on the pool's two threads, ConnectTests' awaits waited over 5 s under ThreadSanitizer on
# CI (stop 33), past bounds that are about the loop, not about the pool.
if [ -n "${SANITIZER_FILTER:-}" ]; then
    filters=("$SANITIZER_FILTER")
else
    filters=('^(WireTests|EventLoopTests|TLSTests)\.' '^(TransportTests|ClientTests)\.' '^FetchTests\.')
fi

# Skipped under ThreadSanitizer only (each still runs in the plain and ASan runs):
#   thousandConnectCloseCyclesLeakNothing (EventLoopTests) compares the process's descriptor count
#   before and after; symbolizing the first (suppressed) Mutex report during it makes TSan start
#   llvm-symbolizer as a child with pipes to it, two descriptors the test sees as a leak.
tsan_skip='thousandConnectCloseCyclesLeakNothing'

# Whether a log holds a sanitizer's report (an ASan error, a TSan warning; suppressed ones print nothing).
has_report() {
    grep -qE "^==[0-9]+==ERROR|WARNING: ThreadSanitizer" "$1"
}

run() {
    local sanitizer=$1 scratch=$2
    local skip=()
    if [ "$sanitizer" = thread ]; then skip=(--skip "$tsan_skip"); fi
    echo "== $sanitizer sanitizer: build ($scratch)"
    local start=$(date +%s)
    swift build --build-tests --sanitize="$sanitizer" --scratch-path "$scratch" 2>&1 | grep -E "error:|Compiling|Build complete" | tail -3
    local built=$(date +%s)
    local status=0 index=0 filter
    # One test process for the current filter, its output in $1.
    test_once() {
        swift test --skip-build --sanitize="$sanitizer" --scratch-path "$scratch" --filter "$filter" "${skip[@]}" >"$1" 2>&1
    }
    for filter in "${filters[@]}"; do
        index=$((index + 1))
        echo "== $sanitizer sanitizer: test (filter $filter)"
        local log=$scratch/sanitizer-test-$index.log run_status=0
        test_once "$log" || run_status=$?
        # A run that failed tests without any sanitizer report runs once more, as scripts/test.sh's
        # run_suite does: a pass then is printed as FLAKY (to be fixed, never hidden). A report, in
        # either run, fails the step: a second run would hide a race TSan sees only sometimes.
        if [ "$run_status" != 0 ] && ! has_report "$log"; then
            echo "FLAKY or failing: first run's failures:"; grep -E "✘" "$log" | head -20 || true
            cp "$log" "$log.first"
            run_status=0
            test_once "$log" || run_status=$?
            if [ "$run_status" = 0 ]; then echo "FLAKY: passed on the second run (first run kept in $log.first)"; fi
        fi
        grep -E "^(==[0-9]+==ERROR|WARNING: ThreadSanitizer|SUMMARY:)|Test run with|tests? (passed|failed)|✘" "$log" | sort | uniq -c | sort -rn | head -40 || true
        echo "$sanitizer, $filter: exit $run_status (log: $log)"
        [ "$run_status" = 0 ] || status=$run_status
    done
    local done=$(date +%s)
    echo "$sanitizer: build $((built - start)) s, tests $((done - built)) s, exit $status"
    return $status
}

export ASAN_OPTIONS="detect_leaks=0:abort_on_error=0:halt_on_error=1:suppressions=$root/scripts/sanitizers/asan.supp${ASAN_OPTIONS:+:$ASAN_OPTIONS}"
export TSAN_OPTIONS="halt_on_error=0:second_deadlock_stack=1:suppressions=$root/scripts/sanitizers/tsan.supp${TSAN_OPTIONS:+:$TSAN_OPTIONS}"

case ${1:-all} in
    address) run address .build-asan ;;
    thread) run thread .build-tsan ;;
    all) status=0; run address .build-asan || status=$?; run thread .build-tsan || status=$?; exit $status ;;
    *) echo "usage: $0 address|thread|all" >&2; exit 2 ;;
esac
