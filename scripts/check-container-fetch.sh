#!/usr/bin/env bash
# The container fetch in a root that holds only itself: builds it (build-container-fetch.sh),
# makes a temporary root with the binary, a CA file, /etc/hosts, /etc/resolv.conf, /dev/null (as
# Docker provides even FROM scratch) and a mounted /proc, and chroots into it to fetch from
# loopback HTTP (httpbin) and HTTPS (openssl s_server with a minted certificate), by IP and by a
# name from the root's /etc/hosts, with the healthcheck spellings, and sends a waiting fetch
# SIGSEGV (one "fetch: crashed" line, exit 139). Needs root (CI runs as root).
# Everything is unmounted, stopped (by PID) and removed on every exit path.
#
#   scripts/check-container-fetch.sh [BINARY]   BINARY: an already built static fetch
set -euo pipefail
cd "$(dirname "$0")/.."
repo=$(pwd)
[ "$(id -u)" = 0 ] || { echo "check-container-fetch: needs root (chroot, mount)" >&2; exit 1; }

work=$(mktemp -d /tmp/fetch-root.XXXXXX)
root=$work/root
server_pid=
started_httpbin=0
cleanup() {
    [ -n "$server_pid" ] && kill "$server_pid" 2>/dev/null || true
    mountpoint -q "$root/proc" 2>/dev/null && { umount "$root/proc" || umount -l "$root/proc"; }
    [ $started_httpbin = 1 ] && bash "$repo/scripts/httpbin.sh" stop >/dev/null 2>&1 || true
    # Never remove a tree that still has something mounted in it.
    if ! grep -q " $root" /proc/mounts; then rm -rf "$work"; fi
}
trap cleanup EXIT
# A signal exits (running the EXIT trap once) instead of resuming the checks.
trap "exit 130" INT
trap "exit 143" TERM

if [ $# -ge 1 ]; then
    install -D -m 755 "$1" "$root/fetch"
else
    bash scripts/build-container-fetch.sh "$work/out"
    install -D -m 755 "$work/out/fetch" "$root/fetch"
fi
if [ -z "${LARIAT_HTTPBIN:-}" ]; then
    # Stopped at exit only if this script started it (httpbin.sh says so on stderr).
    bash scripts/httpbin.sh start 2>&1 >/dev/null | grep -q "already running" || started_httpbin=1
    LARIAT_HTTPBIN="http://127.0.0.1:$(cat .build-test/httpbin.port)"
fi
http_port=${LARIAT_HTTPBIN##*:}

# A CA and a server certificate for service.test and 127.0.0.1.
pki=$work/pki
mkdir -p "$pki"
openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:P-256 -nodes -days 2 -subj /CN=fetch-test-ca \
    -keyout "$pki/ca.key" -out "$pki/ca.pem" 2>/dev/null
openssl req -newkey ec -pkeyopt ec_paramgen_curve:P-256 -nodes -subj /CN=service.test \
    -keyout "$pki/server.key" -out "$pki/server.csr" 2>/dev/null
printf 'subjectAltName=DNS:service.test,IP:127.0.0.1\nextendedKeyUsage=serverAuth\nbasicConstraints=CA:FALSE\n' >"$pki/ext"
openssl x509 -req -in "$pki/server.csr" -CA "$pki/ca.pem" -CAkey "$pki/ca.key" -CAcreateserial -days 2 \
    -extfile "$pki/ext" -out "$pki/server.pem" 2>/dev/null
pin="sha256//$(openssl x509 -in "$pki/server.pem" -pubkey -noout | openssl pkey -pubin -outform der | openssl dgst -sha256 -binary | base64)"
https_port=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])')
openssl s_server -quiet -www -accept "127.0.0.1:$https_port" -cert "$pki/server.pem" -key "$pki/server.key" >/dev/null 2>&1 &
server_pid=$!

# The root: nothing but these.
install -D -m 644 "$pki/ca.pem" "$root/ca.pem"
printf '127.0.0.1 localhost\n127.0.0.1 service.test\n' | install -D -m 644 /dev/stdin "$root/etc/hosts"
printf 'nameserver 127.0.0.1\noptions timeout:1 attempts:1\n' | install -D -m 644 /dev/stdin "$root/etc/resolv.conf"
mkdir -p "$root/proc" "$root/dev"
mknod -m 666 "$root/dev/null" c 1 3
mount -t proc proc "$root/proc"
for _ in $(seq 50); do
    (exec 3<>/dev/tcp/127.0.0.1/$https_port) 2>/dev/null && break
    sleep 0.1
done

size=$(stat -c %s "$root/fetch")
root_size=$(du -sb --exclude=proc "$root" | cut -f1)
echo "root: $(cd "$root" && find . -path ./proc -prune -o -type f -print -o -type c -print | sort | tr '\n' ' ')"
echo "root size: $root_size bytes (fetch $size)"

failures=0
chroot_bin=$(command -v chroot)
# check NAME EXPECTED-STATUS GREP-PATTERN -- fetch arguments...
check() {
    local name=$1 expected=$2 pattern=$3
    shift 4
    local status=0 output
    # An empty environment, as a scratch image has; SSL_CERT_FILE only when CERT_FILE is set.
    if [ -n "${CERT_FILE:-}" ]; then
        output=$(env -i SSL_CERT_FILE="$CERT_FILE" "$chroot_bin" "$root" /fetch "$@" 2>&1) || status=$?
    else
        output=$(env -i "$chroot_bin" "$root" /fetch "$@" 2>&1) || status=$?
    fi
    if [ "$status" = "$expected" ] && { [ -z "$pattern" ] || grep -q -- "$pattern" <<<"$output"; }; then
        echo "ok    $name (exit $status)"
    else
        echo "FAIL  $name: exit $status, expected $expected; output: ${output:0:300}"
        failures=$((failures + 1))
    fi
}
check "HTTP by IP" 0 '"url"' -- -fsS "http://127.0.0.1:$http_port/get"
check "HTTP by a name from /etc/hosts" 0 '"Host": "service.test' -- -fsS "http://service.test:$http_port/get"
check "healthcheck: fetch -fsS URL || exit 1 on a healthy service" 0 "" -- -fsS "http://localhost:$http_port/status/200"
check "healthcheck: an unhealthy service fails it" 22 "(22) The requested URL returned error: 503" -- -fsS "http://localhost:$http_port/status/503"
check "healthcheck: -sSf -o /dev/null" 0 "" -- -sSf -o /dev/null "http://127.0.0.1:$http_port/get"
check "healthcheck: nothing listening" 7 "(7) Failed to connect" -- -fsS "http://127.0.0.1:1/"
check "a name in neither /etc/hosts nor DNS" 6 "(6) Could not resolve host" -- -fsS "http://nowhere.test/"
check "HTTPS by name, --cacert" 0 "s_server" -- -fsS --cacert /ca.pem "https://service.test:$https_port/"
check "HTTPS by IP, --cacert" 0 "s_server" -- -fsS --cacert /ca.pem "https://127.0.0.1:$https_port/"
check "HTTPS, --cacert and the pinned key" 0 "s_server" -- -fsS --cacert /ca.pem --pinnedpubkey "$pin" "https://service.test:$https_port/"
check "HTTPS, a wrong pinned key" 90 "" -- -sS --cacert /ca.pem --pinnedpubkey "sha256//AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA=" "https://service.test:$https_port/"
check "HTTPS, no CA in the root: untrusted" 60 "" -- -sS "https://service.test:$https_port/"
CERT_FILE=/ca.pem check "HTTPS, SSL_CERT_FILE" 0 "s_server" -- -fsS "https://service.test:$https_port/"
install -D -m 644 "$pki/ca.pem" "$root/etc/ssl/certs/ca-certificates.crt"
check "HTTPS, the CA bundle at the usual path" 0 "s_server" -- -fsS "https://service.test:$https_port/"
check "healthcheck: -sSf -o /dev/null -w '%{http_code}'" 0 "^200$" -- -sSf -o /dev/null -w '%{http_code}' "http://service.test:$http_port/get"
check "healthcheck: -w on an unhealthy service" 22 "^503$" -- -sf -w '%{http_code}\n' "http://service.test:$http_port/status/503"
check "healthcheck: -fsSL follows a redirect" 0 '"url"' -- -fsSL "http://service.test:$http_port/redirect-to?url=/get"
# A crash (the build has no unwind tables and the root no swift-backtrace): SIGSEGV sent to a
# fetch waiting on a slow answer prints fetch's one line and still ends by the signal (139).
crash_errors=$work/crash-errors
env -i "$chroot_bin" "$root" /fetch -sS "http://127.0.0.1:$http_port/delay/10" >/dev/null 2>"$crash_errors" &
crash_pid=$!
sleep 1
kill -SEGV "$crash_pid"  # env and chroot exec: the same process is fetch by now
crash_status=0
wait "$crash_pid" || crash_status=$?
if [ "$crash_status" = 139 ] && grep -q "^fetch: crashed: SIGSEGV" "$crash_errors"; then
    echo "ok    a crash: one line on stderr (exit $crash_status)"
else
    echo "FAIL  a crash: exit $crash_status, expected 139; stderr: $(head -c 300 "$crash_errors")"
    failures=$((failures + 1))
fi
[ $failures = 0 ] || { echo "$failures chroot check(s) failed" >&2; exit 1; }
echo "container fetch: all chroot checks passed"
