#!/usr/bin/env bash
# httpbin under gunicorn on 127.0.0.1 for Lariat's integration tests.
#
#   scripts/httpbin.sh start   start on a free port (HTTPBIN_PORT overrides), wait until GET /get
#                              answers, write .build-test/httpbin.port and .build-test/httpbin.pid,
#                              print LARIAT_HTTPBIN=http://127.0.0.1:PORT
#   scripts/httpbin.sh stop    stop exactly the gunicorn master whose PID is in httpbin.pid
#
# 4 gthread workers with 8 threads each: /delay/N and /stream/N block a thread, not a worker,
# so tests can run them concurrently; gthread also keeps connections alive between requests.
# Needs the venv from scripts/install-test-deps.sh (.build-venv/). Log: .build-test/httpbin.log.
set -euo pipefail

root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
state=$root/.build-test
venv=$root/.build-venv
pidfile=$state/httpbin.pid
portfile=$state/httpbin.port

running_pid() {
    [ -s "$pidfile" ] || return 1
    local pid
    pid=$(cat "$pidfile")
    kill -0 "$pid" 2>/dev/null || return 1
    echo "$pid"
}

start() {
    if ! [ -x "$venv/bin/gunicorn" ]; then
        echo "no gunicorn in $venv: run scripts/install-test-deps.sh first" >&2
        exit 1
    fi
    if pid=$(running_pid); then
        echo "httpbin already running (pid $pid, port $(cat "$portfile"))" >&2
        echo "LARIAT_HTTPBIN=http://127.0.0.1:$(cat "$portfile")"
        return 0
    fi
    mkdir -p "$state"
    local port=${HTTPBIN_PORT:-$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1]); s.close()')}
    # setsid: the server must not receive the caller's terminal signals (Ctrl-C in a test run).
    setsid "$venv/bin/gunicorn" \
        --bind "127.0.0.1:$port" \
        --workers 4 --worker-class gthread --threads 8 \
        --timeout 60 --graceful-timeout 5 --keep-alive 5 \
        --log-level warning \
        httpbin:app >"$state/httpbin.log" 2>&1 </dev/null &
    local pid=$!
    echo "$pid" >"$pidfile"
    for _ in $(seq 1 150); do
        if curl -s -o /dev/null -f "http://127.0.0.1:$port/get"; then
            echo "$port" >"$portfile"
            echo "LARIAT_HTTPBIN=http://127.0.0.1:$port"
            return 0
        fi
        if ! kill -0 "$pid" 2>/dev/null; then
            echo "gunicorn exited; see $state/httpbin.log" >&2
            tail -20 "$state/httpbin.log" >&2
            rm -f "$pidfile"
            exit 1
        fi
        sleep 0.1
    done
    echo "httpbin did not answer on port $port within 15 s; stopping it" >&2
    stop
    exit 1
}

stop() {
    local pid
    if ! pid=$(running_pid); then
        echo "httpbin is not running"
        rm -f "$pidfile" "$portfile"
        return 0
    fi
    # SIGTERM to the master: gunicorn stops its workers and exits.
    kill -TERM "$pid"
    for _ in $(seq 1 100); do
        if ! kill -0 "$pid" 2>/dev/null; then
            rm -f "$pidfile" "$portfile"
            echo "stopped httpbin $pid"
            return 0
        fi
        sleep 0.1
    done
    echo "gunicorn $pid did not exit after SIGTERM; sending SIGKILL to it and its workers" >&2
    local -a workers=()
    mapfile -t workers < <(ps -o pid= --ppid "$pid" | tr -d " ")
    kill -KILL "$pid" "${workers[@]}" 2>/dev/null || true
    rm -f "$pidfile" "$portfile"
}

case ${1:-} in
    start) start ;;
    stop) stop ;;
    *) echo "usage: $0 start|stop" >&2; exit 2 ;;
esac
