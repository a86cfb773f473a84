#!/usr/bin/env python3
"""Context switches per keep-alive GET, for Issue 9's target (<= 2 per request).

    Benchmarks/context_switches.py [--requests N] [--clients lariat,lariat-loop,ahc,wrk]
                                   [--repeat R] [--no-pin] [--https]

Runs each client's sequential keep-alive workload (`--workload seq`, 1 KiB body) against a local
nginx (scripts/nginx.sh under .build-bench/ctx-nginx, pinned to CPU 0; the client to CPU 1, as
in run.sh) under `perf stat -e context-switches,cpu-migrations` (every thread of the process) and
GNU time (voluntary and involuntary switches, `%w` and `%c`). Each client runs twice, with
`--requests N` and with a short run, and the figures are the difference divided by the
difference in requests, so process start-up, connection setup and warm-up cancel out. wrk runs
one connection on one thread for two durations and is differenced the same way.

Peers must be built (`swift build -c release --package-path Benchmarks`). Needs `perf`
(apt-get install linux-perf) and /usr/bin/time. nginx is stopped by PID on every exit path.
"""

import argparse
import json
import os
import re
import subprocess
import sys
import tempfile
from pathlib import Path

HERE = Path(__file__).resolve().parent
REPO = HERE.parent
NGINX_DIR = REPO / ".build-bench" / "ctx-nginx"
PEER_ENVIRONMENT = {"lariat-loop": {"LARIAT_PEER_EXECUTOR": "loop"}}
PEER_BINARIES = {"lariat-loop": "lariat"}
SHORT_REQUESTS = 200


def measure(argv, env, pin):
    """Runs argv under perf stat and GNU time; returns (counters, stdout)."""
    with tempfile.TemporaryDirectory() as scratch:
        perf_out, time_out = Path(scratch) / "perf", Path(scratch) / "time"
        command = ["perf", "stat", "-x", ",", "-o", str(perf_out), "-e", "context-switches,cpu-migrations",
                   "--", "/usr/bin/time", "-f", "%w %c", "-o", str(time_out)]
        if pin:
            command += ["taskset", "-c", "1"]
        result = subprocess.run(command + argv, env={**os.environ, **env}, capture_output=True, text=True,
                                timeout=300)
        if result.returncode != 0:
            sys.exit(f"{argv[0]} failed ({result.returncode}): {result.stderr[-400:]}")
        counters = {}
        for line in perf_out.read_text().splitlines():
            fields = line.split(",")
            if len(fields) > 2 and fields[2] in ("context-switches", "cpu-migrations"):
                counters[fields[2]] = int(fields[0])
        voluntary, involuntary = time_out.read_text().split()[-2:]
        counters["voluntary"] = int(voluntary)
        counters["involuntary"] = int(involuntary)
        return counters, result.stdout


def peer_run(client, url, requests, args):
    binary = HERE / ".build" / "release" / f"peer-{PEER_BINARIES.get(client, client)}"
    argv = [str(binary), "--workload", "seq", "--url", url, "--requests", str(requests)]
    if args.cacert:
        argv += ["--cacert", args.cacert]
    counters, stdout = measure(argv, PEER_ENVIRONMENT.get(client, {}), args.pin)
    result = json.loads(stdout.strip().splitlines()[-1])
    return counters, requests, result.get("rps")


def wrk_run(url, seconds, pin):
    argv = ["wrk", "-t1", "-c1", f"-d{seconds}s", url]
    counters, stdout = measure(argv, {}, pin)
    match = re.search(r"(\d+) requests in", stdout)
    if not match:
        sys.exit(f"wrk printed no request count: {stdout}")
    requests = int(match.group(1))
    return counters, requests, requests / seconds


def per_request(client, url, args):
    if client == "wrk":
        short, long = wrk_run(url, 1, args.pin), wrk_run(url, 4, args.pin)
    else:
        short = peer_run(client, url, SHORT_REQUESTS, args)
        long = peer_run(client, url, args.requests, args)
    (short_counters, short_requests, _), (long_counters, long_requests, rps) = short, long
    extra = long_requests - short_requests
    figures = {key: (long_counters[key] - short_counters[key]) / extra for key in long_counters}
    figures["rps"] = rps or 0
    return figures


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--requests", type=int, default=20000, help="requests of the long run (default 20000)")
    parser.add_argument("--clients", default="lariat,lariat-loop,ahc,wrk")
    parser.add_argument("--repeat", type=int, default=3, help="measurements per client; the median is shown")
    parser.add_argument("--no-pin", dest="pin", action="store_false", help="do not pin nginx and the client")
    parser.add_argument("--https", action="store_true", help="measure https://.../1k.bin instead of http")
    args = parser.parse_args()

    env = {**os.environ, "NGINX_CPU": "0"} if args.pin else dict(os.environ)
    output = subprocess.run([str(REPO / "scripts/nginx.sh"), "start", str(NGINX_DIR)], env=env, check=True,
                            capture_output=True, text=True).stdout
    try:
        values = dict(line.split("=", 1) for line in output.splitlines() if "=" in line)
        base = values["LARIAT_NGINX_HTTPS"] if args.https else values["LARIAT_NGINX_HTTP"]
        url = base + "/1k.bin"
        args.cacert = values["LARIAT_NGINX_CA"] if args.https else None
        rows = []
        for client in [c for c in args.clients.split(",") if c]:
            samples = [per_request(client, url, args) for _ in range(args.repeat)]
            median = {key: sorted(s[key] for s in samples)[len(samples) // 2] for key in samples[0]}
            rows.append((client, median, samples))
            print(f"[ctx] {client}: " + ", ".join(f"{s['context-switches']:.2f}" for s in samples),
                  file=sys.stderr, flush=True)
    finally:
        subprocess.run([str(REPO / "scripts/nginx.sh"), "stop", str(NGINX_DIR)], stdout=sys.stderr, check=False)

    print(f"context switches per keep-alive GET (1 KiB, {'https' if args.https else 'http'}), median of {args.repeat}, "
          f"{'client pinned to CPU 1, nginx to CPU 0' if args.pin else 'unpinned'}")
    print(f"{'client':<12} {'switches':>9} {'voluntary':>10} {'involuntary':>12} {'migrations':>11} {'req/s':>8}")
    for client, median, _ in rows:
        print(f"{client:<12} {median['context-switches']:>9.2f} {median['voluntary']:>10.2f} "
              f"{median['involuntary']:>12.2f} {median['cpu-migrations']:>11.3f} {median['rps']:>8.0f}")


if __name__ == "__main__":
    main()
