#!/usr/bin/env python3
"""Lariat macro-benchmarks: every workload x every client, interleaved, against a local nginx.

    Benchmarks/run.sh [--runs N] [--quick] [--clients a,b] [--cases x,y] [--subject lariat]
                      [--no-build] [--max-minutes M] [--out FILE]

Steps: install nginx/curl/wrk if missing (scripts/install-test-deps.sh --no-venv), build the
Swift peers in release, start nginx pinned to CPU 0 (scripts/nginx.sh), then for each run, for
each case, for each client (order rotated every run) start one process pinned to CPU 1. Prints
medians with min/max and the subject's per-run ratios to every other client; writes all runs to
.build-bench/results/<time>.json (and latest.json). nginx is stopped by PID on every exit path.
"""

import argparse
import datetime
import json
import os
import platform
import shutil
import signal
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from runner import clients as client_defs  # noqa: E402
from runner import report  # noqa: E402
from runner.cases import (ALL_CLIENTS, CASES, CASES_BY_NAME, DEFAULT_CLIENTS, PEER_BINARIES, SWIFT_PEERS,  # noqa: E402
                          runs_case)

HERE = Path(__file__).resolve().parent
REPO = HERE.parent
BENCH_DIR = REPO / ".build-bench"
NGINX_DIR = BENCH_DIR / "nginx"
SERVER_CPU, CLIENT_CPU = 0, 1
BUSY_LOAD = 2.5  # the benchmark itself (nginx + one client) accounts for up to ~2
GNU_TIME = "/usr/bin/time" if os.access("/usr/bin/time", os.X_OK) else None


def log(message: str) -> None:
    print(f"[run] {message}", file=sys.stderr, flush=True)


def parse_args() -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--runs", type=int, help="interleaved runs per case and client (default 7, --quick 3)")
    parser.add_argument("--quick", action="store_true", help="smoke run: fewer runs, requests and wrk seconds")
    parser.add_argument("--clients", default=",".join(DEFAULT_CLIENTS),
                        help="comma list (default: all but the lariat-mon-* monitor-overhead peers)")
    parser.add_argument("--cases", default=",".join(c.name for c in CASES),
                        help="comma list (default: all but the openapi-* and ws-echo-* rows)")
    parser.add_argument("--subject", default="lariat", help="client whose ratios to the others are shown")
    parser.add_argument("--no-build", action="store_true", help="use the peer binaries already built")
    parser.add_argument("--timeout", type=float, default=180, help="seconds before one client run is killed")
    parser.add_argument("--max-minutes", type=float, default=60,
                        help="stop starting new runs after this long (results so far are kept)")
    parser.add_argument("--out", type=Path, help="results file (default .build-bench/results/<time>.json)")
    parser.add_argument("--fetch", type=Path, default=REPO / ".build" / "release" / "fetch",
                        help="Lariat's fetch binary for cold-start (default .build/release/fetch; "
                             "build it with `swift build -c release --product fetch`)")
    args = parser.parse_args()
    args.runs = args.runs or (3 if args.quick else 7)
    if args.runs < 1:
        parser.error("--runs must be >= 1")
    args.clients = [c for c in args.clients.split(",") if c]
    args.cases = [c for c in args.cases.split(",") if c]
    for name in args.clients:
        if name not in ALL_CLIENTS:
            parser.error(f"unknown client {name!r} (known: {', '.join(ALL_CLIENTS)})")
    for name in args.cases:
        if name not in CASES_BY_NAME:
            parser.error(f"unknown case {name!r} (known: {', '.join(CASES_BY_NAME)})")
    return args


def ensure_tools() -> None:
    missing = [tool for tool in ("nginx", "curl", "wrk", "openssl") if shutil.which(tool) is None]
    if missing:
        log(f"missing {', '.join(missing)}: running scripts/install-test-deps.sh --no-venv")
        subprocess.run([str(REPO / "scripts/install-test-deps.sh"), "--no-venv"], check=True)


def build_peers(no_build: bool) -> None:
    if no_build:
        return
    log("building Swift peers (release); the first build compiles async-http-client and takes minutes")
    started = time.monotonic()
    subprocess.run(["swift", "build", "-c", "release", "--package-path", str(HERE)], check=True,
                   stdout=sys.stderr)
    log(f"build done in {time.monotonic() - started:.0f} s")


def peer_binary(name: str) -> Path:
    return HERE / ".build" / "release" / f"peer-{PEER_BINARIES.get(name, name)}"


class Nginx:
    """scripts/nginx.sh under .build-bench/nginx, pinned to SERVER_CPU; stop() is idempotent."""

    def __init__(self, pin: bool):
        self.pin = pin
        self.started = False

    def start(self) -> dict:
        env = dict(os.environ)
        if self.pin:
            env["NGINX_CPU"] = str(SERVER_CPU)
        output = subprocess.run([str(REPO / "scripts/nginx.sh"), "start", str(NGINX_DIR)], env=env,
                                check=True, capture_output=True, text=True).stdout
        self.started = True
        values = dict(line.split("=", 1) for line in output.splitlines() if "=" in line)
        log(f"nginx up: {values['LARIAT_NGINX_HTTP']} {values['LARIAT_NGINX_HTTPS']}")
        return values

    def stop(self) -> None:
        if self.started:
            self.started = False
            subprocess.run([str(REPO / "scripts/nginx.sh"), "stop", str(NGINX_DIR)],
                           stdout=sys.stderr, check=False)


class EchoServer:
    """Benchmarks' ws-echo-server (release), pinned to SERVER_CPU; stop() ends it by PID."""

    def __init__(self, pin: bool):
        self.pin = pin
        self.process = None

    def start(self) -> str:
        argv = [str(HERE / ".build" / "release" / "ws-echo-server")]
        if self.pin:
            argv = ["taskset", "-c", str(SERVER_CPU)] + argv
        self.process = subprocess.Popen(argv, stdout=subprocess.PIPE, text=True)
        line = self.process.stdout.readline().strip()
        if not line.startswith("LARIAT_WS_ECHO="):
            self.stop()
            raise RuntimeError(f"ws-echo-server did not start: {line!r}")
        url = line.split("=", 1)[1]
        log(f"ws-echo-server up: {url} (pid {self.process.pid})")
        return url

    def stop(self) -> None:
        if self.process is not None and self.process.poll() is None:
            self.process.terminate()
            try:
                self.process.wait(timeout=10)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait()
        self.process = None


def run_measured(argv, extra_env, timeout, pin):
    """Starts argv (pinned to CLIENT_CPU), waits with wait4 for its rusage; kills it on timeout."""
    # Peak RSS comes from GNU time, which forks the client from its own small process. wait4()
    # on a child of this runner would not do: the kernel folds the forking process's RSS high-water
    # mark (this Python, ~20 MiB) into the child's ru_maxrss at exec.
    rss_file = tempfile.NamedTemporaryFile(prefix="rss-", delete=False)
    rss_file.close()
    if GNU_TIME:
        argv = [GNU_TIME, "-f", "%M", "-o", rss_file.name] + argv
    if pin:
        argv = ["taskset", "-c", str(CLIENT_CPU)] + argv  # taskset execs; time and client inherit the CPU
    env = dict(os.environ)
    env.update(extra_env)
    with tempfile.TemporaryFile() as out, tempfile.TemporaryFile() as err:
        started = time.monotonic()
        process = subprocess.Popen(argv, stdout=out, stderr=err, env=env, start_new_session=True)
        timed_out = threading.Event()

        def kill():
            timed_out.set()
            try:
                os.killpg(process.pid, signal.SIGKILL)
            except ProcessLookupError:
                pass

        timer = threading.Timer(timeout, kill)
        timer.start()
        try:
            _, status, _ = os.wait4(process.pid, 0)
        except BaseException:
            # Interrupted (Ctrl-C, SIGTERM): the client runs in its own session, so end it here.
            kill()
            os.waitpid(process.pid, 0)
            raise
        finally:
            timer.cancel()
        wall = time.monotonic() - started
        process.returncode = os.waitstatus_to_exitcode(status)
        out.seek(0)
        err.seek(0)
        maxrss = None
        try:
            lines = Path(rss_file.name).read_text().split()
            maxrss = int(lines[-1]) if lines and lines[-1].isdigit() else None
        finally:
            os.unlink(rss_file.name)
        return (process.returncode, out.read().decode(errors="replace"), err.read().decode(errors="replace"),
                wall, maxrss, timed_out.is_set())


def execute(invocation, case, timeout, pin) -> dict:
    if invocation.precheck is not None:
        problem = invocation.precheck()
        if problem:
            return {"status": "failed", "error": f"precheck: {problem}"}
    code, stdout, stderr, wall, maxrss, timed_out = run_measured(invocation.argv, invocation.env, timeout, pin)
    if not invocation.measure_rss:
        maxrss = None
    try:
        return judge(invocation, case, timeout, code, stdout, stderr, wall, maxrss, timed_out)
    finally:
        for path in invocation.cleanup:
            path.unlink(missing_ok=True)


def judge(invocation, case, timeout, code, stdout, stderr, wall, maxrss, timed_out) -> dict:
    """Turns a finished process into a record: ok with its numbers, n/a, failed or timeout."""
    record = {"wall_s": round(wall, 4), "os_maxrss_kib": maxrss}
    if timed_out:
        return dict(record, status="timeout", error=f"killed after {timeout:g} s")
    if code == 3:
        return dict(record, status="n/a", error=stderr.strip()[-300:])
    if code != 0:
        return dict(record, status="failed", error=f"exit {code}: {stderr.strip()[-500:]}")
    try:
        fields = invocation.parse(stdout, wall)
        value = client_defs.primary(case, fields)
    except (client_defs.ParseError, ValueError, KeyError) as error:
        return dict(record, status="failed", error=f"{error}; stdout: {stdout.strip()[-300:]}")
    # Swift peers report VmHWM themselves; for curl and wrk GNU time's reading is used.
    rss = fields.get("peak_rss_kib") or maxrss
    return dict(record, status="ok", value=value, fields=fields, rss_kib=int(rss) if rss else None)


def loadavg() -> float:
    """1-minute load average; above BUSY_LOAD other work shares the two CPUs with the benchmark."""
    try:
        return float(Path("/proc/loadavg").read_text().split()[0])
    except (OSError, ValueError, IndexError):
        return 0.0


def tool_version(argv) -> str:
    try:
        result = subprocess.run(argv, capture_output=True, text=True, timeout=10)
        return (result.stdout or result.stderr).strip().splitlines()[0]
    except (OSError, subprocess.SubprocessError, IndexError):
        return "unknown"


def main() -> int:
    args = parse_args()
    pin = (os.cpu_count() or 1) >= 2 and shutil.which("taskset") is not None
    if not pin:
        log("fewer than 2 CPUs or no taskset: server and clients are NOT pinned; numbers are noisier")
    ensure_tools()
    build_peers(args.no_build)

    clients = []
    for name in args.clients:
        if name in SWIFT_PEERS and not peer_binary(name).exists():
            log(f"skipping {name}: {peer_binary(name)} does not exist")
            continue
        clients.append(name)
    cases = [CASES_BY_NAME[name] for name in args.cases]
    if pin:
        os.sched_setaffinity(0, {SERVER_CPU})  # the runner itself stays off the client's CPU

    nginx = Nginx(pin)
    echo = EchoServer(pin)

    def on_signal(signum, _frame):
        raise KeyboardInterrupt(f"signal {signum}")

    signal.signal(signal.SIGTERM, on_signal)
    runs = {case.name: {client: [] for client in clients} for case in cases}
    started_at = datetime.datetime.now(datetime.timezone.utc)
    deadline = time.monotonic() + args.max_minutes * 60
    completed_runs = 0
    load_per_run = []
    clock_started = time.monotonic()
    try:
        servers = nginx.start()
        upload_file = NGINX_DIR / "docroot" / "100m.bin"
        ctx = client_defs.Context(
            bench_dir=BENCH_DIR, http_base=servers["LARIAT_NGINX_HTTP"], https_base=servers["LARIAT_NGINX_HTTPS"],
            ca_file=servers["LARIAT_NGINX_CA"], upload_file=str(upload_file), quick=args.quick,
            wrk_seconds=1 if args.quick else 3)
        if any(case.scheme == "ws" for case in cases):
            ctx.ws_base = echo.start()
        script = HERE / "wrk" / "report.lua"
        for run in range(args.runs):
            if time.monotonic() > deadline:
                log(f"--max-minutes reached after {run} runs; reporting what was measured")
                break
            order = clients[run % len(clients):] + clients[:run % len(clients)]
            load = loadavg()
            load_per_run.append(load)
            log(f"run {run + 1}/{args.runs} (client order: {', '.join(order)}; load average {load:.2f})")
            if load > BUSY_LOAD:
                log(f"  the machine is busy (1-minute load {load:.2f} on {os.cpu_count()} CPUs): expect noise")
            for case in cases:
                for client in order:
                    if not runs_case(client, case):
                        invocation = None
                    elif case.workload == "cold-start":
                        invocation = client_defs.cold_start(client, case, ctx, args.fetch, peer_binary(client))
                    elif client == "curl":
                        invocation = client_defs.curl(case, ctx)
                    elif client == "wrk":
                        invocation = client_defs.wrk(case, ctx, script)
                    else:
                        invocation = client_defs.peer(peer_binary(client), client, case, ctx)
                    if invocation is None:
                        record = {"status": "n/a", "error": "the tool cannot run this workload"}
                    else:
                        record = execute(invocation, case, args.timeout, pin)
                    runs[case.name][client].append(record)
                    shown = report.fmt(record.get("value")) if record["status"] == "ok" else record["status"]
                    log(f"  {case.name:<24} {client:<11} {shown}")
                    if record["status"] in ("failed", "timeout"):
                        log(f"    {record['error']}")
            completed_runs = run + 1
    except KeyboardInterrupt as interruption:
        log(f"interrupted ({interruption}); reporting what was measured")
    finally:
        echo.stop()
        nginx.stop()

    summary = report.summarize(runs, args.subject)
    notes = {case.name: case.note for case in cases if case.note}
    print()
    print(f"Lariat macro-benchmarks: {completed_runs} interleaved run(s), "
          f"{'quick' if args.quick else 'full'} mode; server CPU {SERVER_CPU}, clients CPU {CLIENT_CPU}"
          f"{'' if pin else ' (not pinned)'}; {time.monotonic() - clock_started:.0f} s; "
          f"load average per run: {', '.join(f'{x:.2f}' for x in load_per_run)}")
    print()
    report.print_tables(summary, clients, args.subject, notes)
    meta = {
        "started": started_at.isoformat(timespec="seconds"), "runs_completed": completed_runs,
        "args": {k: (str(v) if isinstance(v, Path) else v) for k, v in vars(args).items()},
        "pinned": pin, "cpus": os.cpu_count(), "kernel": platform.release(),
        "elapsed_s": round(time.monotonic() - clock_started, 1), "loadavg_per_run": load_per_run,
        "tools": {"nginx": tool_version(["nginx", "-v"]), "curl": tool_version(["curl", "--version"]),
                  "wrk": tool_version(["wrk", "--version"]), "swift": tool_version(["swift", "--version"])},
    }
    stamp = started_at.strftime("%Y%m%dT%H%M%SZ")
    out = args.out or BENCH_DIR / "results" / f"{stamp}.json"
    report.write_results(out, meta, runs, summary)
    latest = BENCH_DIR / "results" / "latest.json"
    if out.resolve() != latest.resolve():
        latest.parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(out, latest)
    print(f"\nresults: {out}")
    failures = sum(1 for by_client in runs.values() for records in by_client.values()
                   for record in records if record["status"] in ("failed", "timeout"))
    if failures:
        log(f"{failures} client run(s) failed or timed out; see the results file")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
