"""The benchmark matrix: which workload runs against which nginx file, and Issue 5's targets."""

from dataclasses import dataclass, field
from typing import Dict, Optional

MIB = 1024 * 1024


@dataclass(frozen=True)
class Case:
    """One row of the results table.

    name        row name, also the `--cases` spelling
    workload    the peer contract's `--workload`
    scheme      "http" or "https" (selects the nginx port and passes --cacert)
    path        file or endpoint on the benchmark nginx
    metric      "rps", "mbps" or "sps" (process runs per second, 1 / mean wall time); all higher-is-better
    requests    timed requests for a full run / for --quick
    concurrency in-flight requests (concurrent workload)
    no_resume   pass --no-resume (full TLS handshake on every connection)
    wrk / curl  whether the reference tools can do this case at all
    note        shown under the table (what the references really do)
    """

    name: str
    workload: str
    scheme: str
    path: str
    metric: str
    requests: int
    quick_requests: int
    concurrency: int = 1
    no_resume: bool = False
    wrk: bool = True
    curl: bool = True
    note: str = ""
    # Non-empty: the only clients that run this case (its row's own peers); others show n/a.
    peers: tuple = ()


CASES = [
    Case("seq-1k", "seq", "http", "/1k.bin", "rps", 5000, 1000),
    Case("concurrent-64", "concurrent", "http", "/1k.bin", "rps", 20000, 5000, concurrency=64),
    Case("json", "json", "http", "/doc.json", "rps", 5000, 1000, wrk=False, curl=False,
         note="GET + JSONDecoder into a Codable struct; curl and wrk cannot decode"),
    Case("download-memory-100m", "download-memory", "http", "/100m.bin", "mbps", 1, 1,
         note="curl writes to /dev/null and wrk discards: upper bounds, not in-memory"),
    Case("download-file-100m", "download-file", "http", "/100m.bin", "mbps", 1, 1,
         note="curl writes the file (-o); wrk discards the body"),
    Case("stream-100m", "stream", "http", "/100m.bin", "mbps", 1, 1,
         note="body consumed chunk by chunk and dropped (lariat: streamRequest().streamTask().streamingData(), "
              "ahc: response.body's ByteBuffers); curl writes to /dev/null and wrk discards"),
    Case("upload-100m", "upload", "http", "/upload", "mbps", 1, 1,
         note="POST of a 100 MiB file; nginx reads it all, then answers 204"),
    Case("https-seq-1k", "seq", "https", "/1k.bin", "rps", 5000, 1000),
    Case("https-concurrent-64", "concurrent", "https", "/1k.bin", "rps", 20000, 5000, concurrency=64),
    Case("https-new-conn", "https-new-conn", "https", "/1k.bin", "rps", 500, 100,
         note="conn/s, Connection: close on every request, each client's default resumption "
              "(measured: curl and wrk resume, ahc and urlsession never do)"),
    Case("https-new-conn-noresume", "https-new-conn", "https", "/1k.bin", "rps", 500, 100,
         no_resume=True, wrk=False,
         note="full handshake every time (--no-resume; curl --no-sessionid); wrk cannot turn resumption off"),
    Case("cold-start", "cold-start", "http", "/1k.bin", "sps", 30, 15, wrk=False,
         note="hyperfine: a whole process fetching 1 KiB; lariat = the root package's `fetch URL`, "
              "curl = `curl -s URL`, Swift peers = one seq request without warm-up"),
]

# Rows with peers of their own, not in the default `--cases` (run them by name, README "OpenAPI
# transports" and "WebSocket echo"). `openapi-*`: the generated client of
# Sources/BenchOpenAPI/openapi.yaml GETting the 1 KiB /1k.json over each transport. `ws-echo-*`:
# 1 KiB binary messages echoed by ws-echo-server (NIO, started by the runner on the server's CPU).
OPENAPI_PEERS = ["openapi-lariat", "openapi-ahc", "openapi-urlsession"]
WS_PEERS = ["ws-lariat", "ws-nio"]
ROW_CASES = [
    Case("openapi-seq-1k", "seq", "http", "/1k.json", "rps", 5000, 1000, wrk=False, curl=False,
         peers=tuple(OPENAPI_PEERS), note="generated client getCatalogue(): GET + typed JSON decoding of 1 KiB"),
    Case("openapi-concurrent-64", "concurrent", "http", "/1k.json", "rps", 20000, 5000, concurrency=64,
         wrk=False, curl=False, peers=tuple(OPENAPI_PEERS)),
    Case("ws-echo-seq", "seq", "ws", "/", "rps", 5000, 1000, wrk=False, curl=False, peers=tuple(WS_PEERS),
         note="round trips/s: a 1 KiB binary message sent, its echo received, on one connection"),
    Case("ws-echo-concurrent-64", "concurrent", "ws", "/", "rps", 20000, 5000, concurrency=64, wrk=False,
         curl=False, peers=tuple(WS_PEERS), note="64 connections, each one round trip in flight"),
]

CASES_BY_NAME = {case.name: case for case in CASES + ROW_CASES}


def runs_case(client: str, case: Case) -> bool:
    """Whether `client` takes part in `case`: a row's own peers run only their row's cases."""
    if case.peers:
        return client in case.peers
    return client not in OPENAPI_PEERS + WS_PEERS


@dataclass(frozen=True)
class Target:
    """Issue 5's goal for a case: subject/peer ratio floors and an absolute RSS ceiling."""

    min_ratio: Dict[str, float] = field(default_factory=dict)
    max_rss_kib: Optional[int] = None


# Ratios are subject/peer medians of per-run ratios (higher is better for rps and mbps).
TARGETS = {
    "seq-1k": Target({"ahc": 2.0, "wrk": 0.7}),
    "concurrent-64": Target({"ahc": 2.5, "wrk": 0.4}, max_rss_kib=16 * 1024),
    "json": Target({"ahc": 2.0}),
    "download-memory-100m": Target({"ahc": 2.0}),
    "download-file-100m": Target({"wrk": 0.9}, max_rss_kib=32 * 1024 - 1),
    "https-seq-1k": Target({"ahc": 2.0, "curl": 1.0}),
    "https-concurrent-64": Target({"ahc": 2.0}),
    "cold-start": Target({"curl": 1.0}),
}

# Issue 9's targets (transport core), checked beside Issue 5's: ratios in one run. The executor
# preference (`lariat-loop`) has its own, higher floor against wrk on seq-1k.
ISSUE9_TARGETS = {
    "seq-1k": Target({"ahc": 2.0, "wrk": 0.75}),
    "concurrent-64": Target({"ahc": 2.5}),
    "json": Target({"ahc": 1.6}),
    "https-seq-1k": Target({"ahc": 2.0}),
    "https-concurrent-64": Target({"ahc": 2.0}),
}
# Issue 12's streaming target: at least async-http-client's throughput, peak RSS under 32 MiB.
ISSUE12_TARGETS = {
    "stream-100m": Target({"ahc": 1.0}, max_rss_kib=32 * 1024 - 1),
}
ISSUE9_SUBJECT_TARGETS = {"lariat-loop": {"seq-1k": Target({"ahc": 2.0, "wrk": 0.85})}}

# The Swift peers built from this package, and the reference tools called directly.
# `lariat-loop` is peer-lariat with the whole workload inside `withTaskExecutorPreference` of
# the loop its connections live on (LARIAT_PEER_EXECUTOR=loop, see peer-lariat/main.swift).
# The monitor-overhead row (issue 20): peer-lariat with ClientObservability's monitors on its
# Session (LARIAT_PEER_MONITORS, see peer-lariat/Monitors.swift), against plain `lariat` in the
# same run: `run.sh --subject lariat --cases seq-1k --clients lariat,lariat-mon-logging,...`.
# Not in the default client list (they measure Lariat against itself).
MONITOR_PEERS = ["lariat-mon-logging", "lariat-mon-metrics", "lariat-mon-tracing", "lariat-mon-all"]
SWIFT_PEERS = ["lariat", "lariat-loop", "ahc", "urlsession"] + MONITOR_PEERS + OPENAPI_PEERS + WS_PEERS
# Peers that are another peer's binary run in a mode selected by environment variables.
PEER_BINARIES = {"lariat-loop": "lariat", **{name: "lariat" for name in MONITOR_PEERS}}
PEER_ENVIRONMENT = {
    "lariat-loop": {"LARIAT_PEER_EXECUTOR": "loop"},
    "lariat-mon-logging": {"LARIAT_PEER_MONITORS": "logging"},
    "lariat-mon-metrics": {"LARIAT_PEER_MONITORS": "metrics"},
    "lariat-mon-tracing": {"LARIAT_PEER_MONITORS": "tracing"},
    "lariat-mon-all": {"LARIAT_PEER_MONITORS": "logging,metrics,tracing"},
}
REFERENCES = ["curl", "wrk"]
ALL_CLIENTS = SWIFT_PEERS + REFERENCES
DEFAULT_CLIENTS = [client for client in ALL_CLIENTS if client not in MONITOR_PEERS + OPENAPI_PEERS + WS_PEERS]
