"""How each client runs a case: the command line, its environment, and how to read its output.

Swift peers follow the contract in Benchmarks/README.md and print one JSON line. curl and wrk are
called directly; their output is turned into the same fields (rps, p50_us, p99_us, mbps,
peak_rss_kib). Peak RSS of every process is also taken from wait4()'s ru_maxrss by the runner.
"""

import json
import os
import shlex
import shutil
import statistics
import subprocess
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable, Dict, List, Optional

from .cases import PEER_ENVIRONMENT, Case

SEQ_WARMUP = 10  # same default as the Swift peers (Workload.defaultWarmup)


@dataclass
class Context:
    """Everything a run needs to know about this benchmark session."""

    bench_dir: Path          # .build-bench/ (scratch: configs, outputs, results)
    http_base: str           # http://127.0.0.1:PORT
    https_base: str          # https://127.0.0.1:PORT
    ca_file: str             # CA that signed nginx's certificate
    upload_file: str         # the 100 MiB file POSTed by the upload case
    quick: bool
    wrk_seconds: float       # wrk runs for a duration, not a request count
    ws_base: str = ""        # ws://127.0.0.1:PORT of ws-echo-server, when a ws case runs

    def url(self, case: Case) -> str:
        if case.scheme == "ws":
            return self.ws_base.rstrip("/") + case.path
        return (self.https_base if case.scheme == "https" else self.http_base) + case.path

    def requests(self, case: Case) -> int:
        return case.quick_requests if self.quick else case.requests

    def scratch(self, name: str) -> Path:
        path = self.bench_dir / "tmp" / name
        path.parent.mkdir(parents=True, exist_ok=True)
        return path


class ParseError(Exception):
    """A client finished but its output does not hold a valid measurement."""


@dataclass
class Invocation:
    """One process to start: argv, extra environment, and the parser of its stdout."""

    argv: List[str]
    parse: Callable[[str, float], Dict[str, float]]   # (stdout, wall seconds) -> fields
    env: Dict[str, str] = field(default_factory=dict)
    cleanup: List[Path] = field(default_factory=list)
    # Runs before the measurement; returns an error message when the command cannot be trusted.
    precheck: Optional[Callable[[], Optional[str]]] = None
    # False when the process's peak RSS says nothing about the client (hyperfine).
    measure_rss: bool = True


def primary(case: Case, fields: Dict[str, float]) -> float:
    """The number a case is ranked by."""
    value = fields.get(case.metric)
    if value is None:
        raise ParseError(f"no {case.metric} in result")
    return float(value)


def tls_env(case: Case, ctx: Context) -> Dict[str, str]:
    # OpenSSL-based clients without a CA option (URLSession's libcurl) read SSL_CERT_FILE.
    env = {"TMPDIR": str(ctx.scratch("tmpdir/x").parent)}
    if case.scheme == "https":
        env["SSL_CERT_FILE"] = ctx.ca_file
    return env


# MARK: Swift peers

def peer(binary: Path, client: str, case: Case, ctx: Context) -> Invocation:
    argv = [str(binary), "--workload", case.workload, "--url", ctx.url(case),
            "--requests", str(ctx.requests(case))]
    if case.concurrency > 1:
        argv += ["--concurrency", str(case.concurrency)]
    if case.scheme == "https":
        argv += ["--cacert", ctx.ca_file]
    if case.no_resume:
        argv.append("--no-resume")
    cleanup = []
    if case.workload == "download-file":
        out = ctx.scratch(f"out/{client}.bin")
        argv += ["--out", str(out)]
        cleanup.append(out)
    if case.workload == "upload":
        argv += ["--file", ctx.upload_file]

    def parse(stdout: str, wall: float) -> Dict[str, float]:
        lines = [line for line in stdout.splitlines() if line.strip()]
        if len(lines) != 1:
            raise ParseError(f"expected exactly one stdout line, got {len(lines)}")
        try:
            result = json.loads(lines[0])
        except json.JSONDecodeError as error:
            raise ParseError(f"stdout is not JSON: {error}") from None
        if result.get("workload") != case.workload:
            raise ParseError(f"result is for workload {result.get('workload')!r}")
        return {key: value for key, value in result.items() if isinstance(value, (int, float))}

    env = tls_env(case, ctx)
    env.update(PEER_ENVIRONMENT.get(client, {}))
    if client == "urlsession" and case.scheme == "https":
        wrapped = system_ca_namespace(argv, ctx.ca_file)
        if wrapped is not None:
            argv = wrapped
            env["LARIAT_SYSTEM_CA_IS_CACERT"] = "1"
    return Invocation(argv, parse, env, cleanup)


SYSTEM_CA_BUNDLE = "/etc/ssl/certs/ca-certificates.crt"


def system_ca_namespace(argv: List[str], ca_file: str) -> Optional[List[str]]:
    """Runs argv in a private mount namespace where the system CA bundle is ca_file.

    URLSession on Linux cannot be told to trust a CA (see peer-urlsession); a bind mount that
    only this process tree sees gives it the benchmark CA without touching the machine's trust
    store. Needs root and util-linux's unshare; returns None otherwise (the peer then reports
    n/a for HTTPS cases)."""
    if os.geteuid() != 0 or shutil.which("unshare") is None or not os.path.exists(SYSTEM_CA_BUNDLE):
        return None
    script = 'mount --bind "$0" ' + SYSTEM_CA_BUNDLE + ' && exec "$@"'
    return ["unshare", "--mount", "--propagation", "private", "--", "sh", "-c", script, ca_file] + argv


# MARK: curl

CURL_WRITE_OUT = r"%{time_total} %{http_code} %{size_download} %{size_upload} %{num_connects}\n"


def curl(case: Case, ctx: Context) -> Optional[Invocation]:
    """One curl process per run; a config file lists every transfer (keep-alive across them)."""
    if not case.curl:
        return None
    requests = ctx.requests(case)
    sequential = case.workload != "concurrent"
    warmup = {"seq": SEQ_WARMUP, "https-new-conn": 1}.get(case.workload, 0)
    lines = ["silent", "show-error", f'write-out = "{CURL_WRITE_OUT}"']
    if case.scheme == "https":
        lines.append(f'cacert = "{ctx.ca_file}"')
    if case.workload == "https-new-conn":
        lines.append('header = "Connection: close"')
        if case.no_resume:
            lines.append("no-sessionid")
    if case.workload == "concurrent":
        lines += ["parallel", f"parallel-max = {case.concurrency}"]
    if case.workload == "upload":
        lines += ['request = "POST"', 'header = "Expect:"', 'header = "Content-Type: application/octet-stream"']
    cleanup = []
    out = "/dev/null"
    if case.workload == "download-file":
        path = ctx.scratch("out/curl.bin")
        out = str(path)
        cleanup.append(path)
    for _ in range(warmup + requests):
        lines.append(f'url = "{ctx.url(case)}"')
        if case.workload == "upload":
            lines.append(f'upload-file = "{ctx.upload_file}"')
        lines.append(f'output = "{out}"')
    config = ctx.scratch(f"curl-{case.name}.cfg")
    config.write_text("\n".join(lines) + "\n")

    def parse(stdout: str, wall: float) -> Dict[str, float]:
        rows = [line.split() for line in stdout.splitlines() if line.strip()]
        if len(rows) != warmup + requests:
            raise ParseError(f"expected {warmup + requests} transfers, got {len(rows)}")
        bad = [row for row in rows if not row[1].startswith("2")]
        if bad:
            raise ParseError(f"{len(bad)} transfers failed, first status {bad[0][1]}")
        timed = rows[warmup:]
        times = sorted(float(row[0]) for row in timed)
        moved = sum(int(row[3] if case.workload == "upload" else row[2]) for row in timed)
        # Sequential: curl's own per-transfer clocks (no process start-up, no gaps between
        # transfers). Parallel: per-transfer clocks overlap, so the process wall time is used.
        seconds = sum(times) if sequential else wall
        fields = {"seconds": seconds, "requests": len(timed), "bytes": moved}
        if case.metric == "rps":
            fields["rps"] = len(timed) / seconds
            fields["p50_us"] = percentile(times, 50) * 1e6
            fields["p99_us"] = percentile(times, 99) * 1e6
        else:
            fields["mbps"] = moved / seconds / 1e6
        return fields

    return Invocation(["curl", "--config", str(config)], parse, tls_env(case, ctx), cleanup)


# MARK: wrk

def wrk(case: Case, ctx: Context, script: Path) -> Optional[Invocation]:
    """wrk runs for ctx.wrk_seconds with one thread; latency percentiles come from its Lua API."""
    if not case.wrk:
        return None
    connections = case.concurrency if case.workload == "concurrent" else 1
    argv = ["wrk", "-t1", f"-c{connections}", f"-d{ctx.wrk_seconds:g}s", "--timeout", "60s",
            "-s", str(script)]
    env = tls_env(case, ctx)
    if case.workload == "https-new-conn":
        argv += ["-H", "Connection: close"]
    if case.workload == "upload":
        env["WRK_BODY_FILE"] = ctx.upload_file
    argv.append(ctx.url(case))
    upload_size = Path(ctx.upload_file).stat().st_size if case.workload == "upload" else 0

    def parse(stdout: str, wall: float) -> Dict[str, float]:
        marker = [line for line in stdout.splitlines() if line.startswith("WRK_RESULT ")]
        if not marker:
            raise ParseError("no WRK_RESULT line")
        result = json.loads(marker[-1][len("WRK_RESULT "):])
        if result["status_errors"] or result["requests"] == 0:
            raise ParseError(f"wrk: {result['status_errors']} status errors, {result['requests']} requests")
        # Connection: close makes wrk count the server's close as a read error on some runs;
        # anything beyond one per request is a real failure.
        if result["socket_errors"] > (result["requests"] if case.workload == "https-new-conn" else 0):
            raise ParseError(f"wrk: {result['socket_errors']} socket errors")
        seconds = result["duration_us"] / 1e6
        moved = result["requests"] * upload_size if case.workload == "upload" else result["bytes"]
        fields = {"seconds": seconds, "requests": result["requests"], "bytes": moved}
        if case.metric == "rps":
            fields["rps"] = result["requests"] / seconds
            fields["p50_us"] = result["p50_us"]
            fields["p99_us"] = result["p99_us"]
        else:
            fields["mbps"] = moved / seconds / 1e6
        return fields

    return Invocation(argv, parse, env)


def percentile(sorted_values: List[float], p: float) -> float:
    """Nearest-rank percentile, the same definition the Swift peers use."""
    if not sorted_values:
        return 0.0
    rank = max(1, min(len(sorted_values), -(-int(p * len(sorted_values)) // 100)))
    return sorted_values[rank - 1]


def median(values: List[float]) -> float:
    return statistics.median(values)


# MARK: cold start (hyperfine)

def cold_start(client: str, case: Case, ctx: Context, fetch: Optional[Path], peer_binary: Path) -> Optional[Invocation]:
    """hyperfine times whole processes: start, one GET of 1 KiB, exit.

    The command is run once first and must really fetch the body, so a placeholder binary that
    exits 0 cannot pass as fast."""
    url = ctx.url(case)
    if client == "curl":
        command = ["curl", "-s", url]
        expect = "body"
    elif client == "lariat":
        if fetch is None or not fetch.exists():
            return None
        command = [str(fetch), url]
        expect = "body"
    elif client in ("ahc", "urlsession"):
        command = [str(peer_binary), "--workload", "seq", "--url", url, "--requests", "1", "--warmup", "0"]
        expect = "json"
    else:
        return None
    if shutil.which("hyperfine") is None:
        return None
    runs = ctx.requests(case)
    export = ctx.scratch(f"hyperfine-{client}.json")
    argv = ["hyperfine", "-N", "--style", "none", "--warmup", "3", "--runs", str(runs),
            "--export-json", str(export), " ".join(shlex.quote(part) for part in command)]

    def precheck() -> Optional[str]:
        try:
            result = subprocess.run(command, capture_output=True, timeout=30)
        except (OSError, subprocess.SubprocessError) as error:
            return f"cannot run {command[0]}: {error}"
        if result.returncode != 0:
            return f"{command[0]} exited {result.returncode}: {result.stderr.decode(errors='replace')[-200:]}"
        if expect == "body" and len(result.stdout) != 1024:
            return f"{command[0]} printed {len(result.stdout)} bytes, not the 1 KiB body"
        if expect == "json" and b'"requests":1' not in result.stdout:
            return f"{command[0]} did not report one request"
        return None

    def parse(stdout: str, wall: float) -> Dict[str, float]:
        try:
            result = json.loads(export.read_text())["results"][0]
        except (OSError, ValueError, KeyError, IndexError) as error:
            raise ParseError(f"hyperfine export unreadable: {error}") from None
        mean = result["mean"]
        times = sorted(result.get("times") or [mean])
        return {"sps": 1 / mean, "mean_ms": mean * 1e3, "p50_us": percentile(times, 50) * 1e6,
                "p99_us": percentile(times, 99) * 1e6, "requests": runs}

    return Invocation(argv, parse, {}, [export], precheck=precheck, measure_rss=False)
