#!/usr/bin/env bash
# Decoding a gzip body of 100 MiB (decoded) through fetch --compressed, against zcat on the same
# file in the same run (issue 12's content-coding benchmark).
#
#   Benchmarks/gzip-vs-zcat.sh [FETCH]      FETCH: a release fetch binary; default
#                                           .build/release/fetch, else /tmp/cf-out/fetch
#                                           (scripts/build-container-fetch.sh /tmp/cf-out)
#   RUNS=5 Benchmarks/gzip-vs-zcat.sh       interleaved runs (default 5); medians are printed
#
# The body is text-like JSON lines with pseudo-random numbers (compresses about 4:1, like API
# responses), made once under .build-bench/gzip/. A loopback Python server sends it with
# Content-Encoding: gzip and Content-Length. Each run times, back to back:
#   zcat FILE > /dev/null                       zlib alone, reading a local file
#   fetch --compressed -o /dev/null URL         loopback HTTP + zlib + fetch's buffering
#   curl --compressed -o /dev/null URL          for context
# and prints each median, fetch's ratio to zcat (per run, then the median), and fetch's peak RSS.
set -euo pipefail
cd "$(dirname "$0")/.."
fetch=${1:-}
if [ -z "$fetch" ]; then
    for candidate in .build/release/fetch /tmp/cf-out/fetch; do
        [ -x "$candidate" ] && { fetch=$candidate; break; }
    done
fi
[ -n "$fetch" ] && [ -x "$fetch" ] || { echo "no release fetch: swift build -c release --product fetch, or pass its path" >&2; exit 2; }
runs=${RUNS:-5}
dir=.build-bench/gzip
mkdir -p "$dir"
if ! [ -s "$dir/body.gz" ]; then
    python3 - "$dir/body" <<'PY'
import random, sys
random.seed(12)
target = 100 * 1024 * 1024
with open(sys.argv[1], "w") as out:
    written = 0
    while written < target:
        line = '{"id":%d,"name":"item-%d","price":%d.%02d,"tags":["a","b%d"],"ok":true}\n' % (
            random.randrange(10**9), random.randrange(10**6), random.randrange(10**4), random.randrange(100), random.randrange(50))
        line = line[: target - written]
        out.write(line)
        written += len(line)
PY
    gzip -6n < "$dir/body" > "$dir/body.gz"
    rm -f "$dir/body"
fi

# The server: one file, Content-Encoding: gzip, Content-Length, keep-alive off.
python3 - "$dir/body.gz" > "$dir/server.port" <<'PY' &
import http.server, os, sys, socketserver
path = sys.argv[1]
size = os.path.getsize(path)
class Handler(http.server.BaseHTTPRequestHandler):
    def do_GET(self):
        self.send_response(200)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Encoding", "gzip")
        self.send_header("Content-Length", str(size))
        self.send_header("Connection", "close")
        self.end_headers()
        with open(path, "rb") as f:
            os.sendfile(self.wfile.fileno(), f.fileno(), 0, size)
    def log_message(self, *args):
        pass
with socketserver.TCPServer(("127.0.0.1", 0), Handler) as server:
    print(server.server_address[1], flush=True)
    server.serve_forever()
PY
server=$!
trap 'kill $server 2>/dev/null || true' EXIT
for _ in $(seq 50); do [ -s "$dir/server.port" ] && break; sleep 0.1; done
url="http://127.0.0.1:$(cat "$dir/server.port")/body.json"

# Sanity: fetch decodes to the same bytes zcat does.
[ "$("$fetch" -sS --compressed "$url" | md5sum)" = "$(zcat "$dir/body.gz" | md5sum)" ] || { echo "fetch's output differs from zcat's" >&2; exit 1; }

python3 - "$fetch" "$url" "$dir/body.gz" "$runs" <<'PY'
import os, statistics, subprocess, sys, time
fetch, url, gz, runs = sys.argv[1], sys.argv[2], sys.argv[3], int(sys.argv[4])
def timed(argv, stdout=subprocess.DEVNULL):
    start = time.perf_counter()
    subprocess.run(argv, stdout=stdout, check=True)
    return time.perf_counter() - start
tools = {
    "zcat": lambda: timed(["zcat", gz]),
    "fetch": lambda: timed([fetch, "-sS", "--compressed", "-o", "/dev/null", url]),
    "curl": lambda: timed(["curl", "-sS", "--compressed", "-o", "/dev/null", url]),
}
times = {name: [] for name in tools}
order = list(tools)
for run in range(runs):
    for name in order[run % 3:] + order[: run % 3]:
        times[name].append(tools[name]())
ratios = [f / z for f, z in zip(times["fetch"], times["zcat"])]
rss = subprocess.run(["/usr/bin/time", "-f", "%M", fetch, "-sS", "--compressed", "-o", "/dev/null", url],
                     stderr=subprocess.PIPE, text=True, check=True).stderr.strip().splitlines()[-1]
print(f"gzip body: {os.path.getsize(gz) / 1048576:.1f} MiB coded, 100.0 MiB decoded; {runs} interleaved runs")
for name in order:
    print(f"  {name:5s} median {statistics.median(times[name]) * 1000:7.0f} ms  (min {min(times[name]) * 1000:.0f}, max {max(times[name]) * 1000:.0f})")
print(f"  fetch/zcat ratio: median {statistics.median(ratios):.2f}x (min {min(ratios):.2f}, max {max(ratios):.2f})")
print(f"  fetch peak RSS: {int(rss) / 1024:.1f} MiB")
PY
