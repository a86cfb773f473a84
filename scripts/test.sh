#!/usr/bin/env bash
# The test command (README "Run the tests"): works on a fresh machine.
#  1. installs test dependencies (apt: nginx, curl, wrk, valgrind, openssl...; PyPI: httpbin +
#     gunicorn into .build-venv/),
#  2. starts httpbin on a free loopback port (stopped by PID on exit),
#  3. prints the Alamofire API coverage figure (scripts/api-coverage.sh; list in .build-test/),
#     converts Client's DocC catalog with warnings as errors (scripts/docs.sh, about a minute),
#     then swift test with the default traits (full Foundation for URLError & co.; fetch's
#     suites in a run of their own),
#  4. swift test with default traits disabled (FoundationEssentials only) for the Transport,
#     Client and fetch suites,
#  5. checks the minimal fetch binary links neither Foundation, FoundationNetworking nor libcurl,
#     nor any package of ClientObservability or LariatOpenAPI (its link map and symbols),
#  5b. builds the container fetch (fully static, one LTO unit, with its trimmed OpenSSL built
#     from Debian's source), runs it chrooted in a root holding only itself, a CA file,
#     /etc/hosts, /etc/resolv.conf, /dev/null and /proc (as root; CI is), then runs fetch's
#     suites against that binary (LARIAT_FETCH_BINARY),
#  6. fuzzes the Wire parser, then the X.509 targets (certificate, chain, crl, ocsp, pkcs12)
#     and pem, 60 s each under AddressSanitizer (fails on any crash or property violation),
#  7. prints the Wire parser benchmark figures,
#  8. checks the micro benchmarks' allocation counts against Benchmarks/Thresholds (fails on a
#     regression; Benchmarks/check-allocations.sh, package-benchmark),
#  9. runs the CI-size soak (scripts/soak.sh ci: ~10,000 requests with faults against nginx;
#     fails on a leaked descriptor or thread, RSS growth >= 1 MiB, or a request that did not end
#     as expected),
# 10. runs the Autobahn|Testsuite CI slice against the WebSocket client (scripts/autobahn/run.sh:
#     a Python 3 port of its fuzzingserver in .build-autobahn/; fails on any case not OK,
#     NON-STRICT or INFORMATIONAL; --full by hand),
# 11. runs the Wire, EventLoop, TLS, Transport, Client and fetch suites under AddressSanitizer and
#     ThreadSanitizer (scripts/sanitizers.sh; fails on any report not in scripts/sanitizers/*.supp).
set -euo pipefail
cd "$(dirname "$0")/.."
root=$(pwd)

bash scripts/install-test-deps.sh
bash scripts/httpbin.sh start
cleanup() { bash "$root/scripts/httpbin.sh" stop || true; }
trap cleanup EXIT
export LARIAT_HTTPBIN="http://127.0.0.1:$(cat .build-test/httpbin.port)"
echo "httpbin at $LARIAT_HTTPBIN"

echo "== swift build (default traits), warnings are errors"
swift build --build-tests 2>&1 | tee .build-test/build.log
# Dependency manifests' own notes are not our warnings: swift-distributed-tracing 1.7.3 leaves
# its CMakeLists.txt files unhandled in its targets (a package-loading note about its layout).
if grep -E "warning:" .build-test/build.log | grep -v "^warning: 'benchmarks'" \
    | grep -v "^warning: 'swift-distributed-tracing': found 1 file(s) which are unhandled" >/dev/null; then
    echo "build produced warnings" >&2
    exit 1
fi

echo "== Alamofire API coverage (prints the figure; fails only if the check itself breaks)"
bash scripts/api-coverage.sh | tee .build-test/api-coverage.log | grep -E "^(Alamofire|Cannot|Provided|Missing|API coverage)"

echo "== Client documentation (DocC catalog, warnings are errors)"
bash scripts/docs.sh

echo "== swift test (default traits: FullFoundation)"
# A failing run prints its failures and runs once more: a test that fails twice fails CI, one
# that passes on the second run is printed as flaky (to be fixed, never hidden: grep "FLAKY").
run_suite() {  # run_suite LOG swift-test-arguments...
    local log=$1; shift
    if swift test "$@" > "$log" 2>&1 && grep -qE "Test run with [0-9]+ tests? .*passed" "$log"; then
        return 0
    fi
    echo "FLAKY or failing: first run's failures:"; grep -E "✘" "$log" | head -40 || true
    cp "$log" "$log.first"
    if swift test "$@" > "$log" 2>&1 && grep -qE "Test run with [0-9]+ tests? .*passed" "$log"; then
        echo "FLAKY: passed on the second run (first run kept in $log.first)"
        return 0
    fi
    grep -E "✘" "$log" | head -60 || true; tail -5 "$log"
    return 1
}
# Three runs. Swift Testing starts every test at once on Swift's cooperative pool (two threads
# on CI's 2-core machine), so a test that awaits rejoins a queue of hundreds of others: in one
# run, the OpenAPI transport's and the observability monitors' tests, whose requests run against
# 60 s timeouts and whose bodies are produced by async sequences, waited 65-170 s and timed out
# (CI, session 9). They run on their own; fetch's suites (child processes, hundreds of rows,
# waits) run on their own too.
run_suite .build-test/test.log --skip-build --skip '^(FetchTests|ClientObservabilityTests|LariatOpenAPITests)\.'
tail -3 .build-test/test.log
echo "== swift test (default traits): the OpenAPI transport and the observability monitors"
run_suite .build-test/test-ecosystem.log --skip-build --filter '^(ClientObservabilityTests|LariatOpenAPITests)\.'
tail -3 .build-test/test-ecosystem.log
echo "== swift test (default traits): fetch's suites"
run_suite .build-test/test-fetch.log --skip-build --filter '^FetchTests\.'
tail -3 .build-test/test-fetch.log

echo "== swift test --disable-default-traits (FoundationEssentials only): Transport, Client and fetch suites"
run_suite .build-test/test-minimal.log --disable-default-traits --scratch-path .build-minimal --filter '^(TransportTests|ClientTests)\.'
tail -3 .build-test/test-minimal.log
run_suite .build-test/test-minimal-fetch.log --disable-default-traits --scratch-path .build-minimal --filter '^FetchTests\.'
tail -3 .build-test/test-minimal-fetch.log

echo "== minimal fetch binary"
bash scripts/check-fetch-binary.sh

echo "== container fetch: one static binary as the whole root (chroot), then fetch's suites against it"
# The build the image ships (static, LTO, no unwind tables: scripts/build-container-fetch.sh)
# is not the one the suites above ran, so the suites run once more against it.
bash scripts/build-container-fetch.sh .build-test/container
if [ "$(id -u)" = 0 ]; then
    bash scripts/check-container-fetch.sh .build-test/container/fetch
else
    echo "skipped: the chroot test needs root (CI runs as root)"
fi
export LARIAT_FETCH_BINARY=$root/.build-test/container/fetch
run_suite .build-test/test-container-fetch.log --skip-build --filter '^FetchTests\.|FetchWebSocketTests|URLStringEscapingTests|SANKindsHandshake'
unset LARIAT_FETCH_BINARY
tail -3 .build-test/test-container-fetch.log

if [ -x Fuzz/run.sh ]; then
    echo "== fuzz the Wire parser for 60 s"
    bash Fuzz/run.sh parser 60
    echo "== fuzz websocket for 60 s"
    bash Fuzz/run.sh websocket 60  # WebSocket frames: parser, reference decoder, serializer round trip
    # X.509 DER with the structure-aware mutator, and PEM/client identities (issue 18), under
    # AddressSanitizer. The first run builds TLS once; the others only link their main.swift.
    for target in certificate chain crl ocsp pkcs12 pem; do
        echo "== fuzz $target for 60 s"
        bash Fuzz/run.sh "$target" 60
    done
fi

echo "== Wire benchmark"
swift build -c release --product wire-bench >/dev/null
.build/release/wire-bench --iterations 500000 | tee .build-test/wire-bench.log
# Allocation counts are stable on a noisy machine (times are not): a head must parse with none.
grep -q "0.000 allocations/message" .build-test/wire-bench.log || { echo "Wire head parsing allocates" >&2; exit 1; }

echo "== allocation check (micro benchmarks, Benchmarks/Thresholds)"
bash Benchmarks/check-allocations.sh

echo "== soak (CI size)"
bash scripts/soak.sh ci

echo "== Autobahn|Testsuite, CI slice (scripts/autobahn/run.sh; --full by hand)"
bash scripts/autobahn/run.sh

echo "== sanitizers (address, thread)"
bash scripts/sanitizers.sh all
