"""Unit tests of the runner's pure parts; from Benchmarks/: python3 -m unittest discover -s runner -t ."""

import unittest
from pathlib import Path
from tempfile import TemporaryDirectory

from runner import clients, report
from runner.cases import CASES_BY_NAME


def context(tmp: Path, quick: bool = True) -> clients.Context:
    upload = tmp / "upload.bin"
    upload.write_bytes(b"x" * 10)
    return clients.Context(bench_dir=tmp, http_base="http://127.0.0.1:1", https_base="https://127.0.0.1:2",
                           ca_file=str(tmp / "ca.pem"), upload_file=str(upload), quick=quick, wrk_seconds=1)


class PercentileTests(unittest.TestCase):
    def test_nearest_rank(self):
        values = list(range(1, 101))
        self.assertEqual(clients.percentile(values, 50), 50)
        self.assertEqual(clients.percentile(values, 99), 99)
        self.assertEqual(clients.percentile([7], 99), 7)
        self.assertEqual(clients.percentile([1, 2, 3, 4], 75), 3)
        self.assertEqual(clients.percentile([], 50), 0.0)


class CurlTests(unittest.TestCase):
    def test_sequential_excludes_warmup_and_uses_transfer_clocks(self):
        with TemporaryDirectory() as tmp:
            case = CASES_BY_NAME["seq-1k"]
            invocation = clients.curl(case, context(Path(tmp)))
            config = Path(invocation.argv[-1]).read_text()
            self.assertEqual(config.count("url = "), clients.SEQ_WARMUP + case.quick_requests)
            warm = ["1.0 200 1024 0 1"] * clients.SEQ_WARMUP
            timed = ["0.001 200 1024 0 0"] * case.quick_requests
            fields = invocation.parse("\n".join(warm + timed), wall=99)
            self.assertAlmostEqual(fields["rps"], 1000, places=3)
            self.assertEqual(fields["bytes"], 1024 * case.quick_requests)

    def test_failed_transfer_is_an_error(self):
        with TemporaryDirectory() as tmp:
            case = CASES_BY_NAME["seq-1k"]
            invocation = clients.curl(case, context(Path(tmp)))
            rows = ["0.001 200 1024 0 0"] * (clients.SEQ_WARMUP + case.quick_requests - 1) + ["0.001 503 0 0 0"]
            with self.assertRaises(clients.ParseError):
                invocation.parse("\n".join(rows), wall=1)

    def test_missing_transfers_are_an_error(self):
        with TemporaryDirectory() as tmp:
            invocation = clients.curl(CASES_BY_NAME["seq-1k"], context(Path(tmp)))
            with self.assertRaises(clients.ParseError):
                invocation.parse("0.001 200 1024 0 0\n", wall=1)

    def test_json_has_no_curl_reference(self):
        with TemporaryDirectory() as tmp:
            self.assertIsNone(clients.curl(CASES_BY_NAME["json"], context(Path(tmp))))


class WrkTests(unittest.TestCase):
    def test_upload_throughput_counts_bodies_sent(self):
        with TemporaryDirectory() as tmp:
            invocation = clients.wrk(CASES_BY_NAME["upload-100m"], context(Path(tmp)), Path("report.lua"))
            line = 'WRK_RESULT {"requests":5,"bytes":999,"duration_us":1000000,"socket_errors":0,' \
                   '"status_errors":0,"p50_us":1.0,"p99_us":2.0}'
            fields = invocation.parse("noise\n" + line + "\n", wall=1)
            self.assertAlmostEqual(fields["mbps"], 50 / 1e6)

    def test_status_errors_fail(self):
        with TemporaryDirectory() as tmp:
            invocation = clients.wrk(CASES_BY_NAME["seq-1k"], context(Path(tmp)), Path("report.lua"))
            line = 'WRK_RESULT {"requests":5,"bytes":5,"duration_us":1,"socket_errors":0,' \
                   '"status_errors":1,"p50_us":1.0,"p99_us":2.0}'
            with self.assertRaises(clients.ParseError):
                invocation.parse(line, wall=1)


class PeerTests(unittest.TestCase):
    def test_exactly_one_json_line(self):
        with TemporaryDirectory() as tmp:
            invocation = clients.peer(Path("/x/peer-ahc"), "ahc", CASES_BY_NAME["seq-1k"], context(Path(tmp)))
            ok = '{"client":"ahc","workload":"seq","rps":10,"requests":1}'
            self.assertEqual(invocation.parse(ok + "\n", 1)["rps"], 10)
            with self.assertRaises(clients.ParseError):
                invocation.parse(ok + "\n" + ok, 1)
            with self.assertRaises(clients.ParseError):
                invocation.parse('{"client":"ahc","workload":"json","rps":10}', 1)

    def test_https_arguments(self):
        with TemporaryDirectory() as tmp:
            ctx = context(Path(tmp))
            invocation = clients.peer(Path("/x/peer-ahc"), "ahc", CASES_BY_NAME["https-new-conn-noresume"], ctx)
            self.assertIn("--no-resume", invocation.argv)
            self.assertEqual(invocation.argv[invocation.argv.index("--cacert") + 1], ctx.ca_file)
            self.assertTrue(invocation.argv[invocation.argv.index("--url") + 1].startswith("https://"))


class SummaryTests(unittest.TestCase):
    def test_ratios_pair_runs_and_skip_failures(self):
        ok = lambda value: {"status": "ok", "value": value, "fields": {}, "rss_kib": 1000}
        runs = {"seq-1k": {
            "lariat": [ok(300), ok(200), {"status": "failed"}],
            "ahc": [ok(100), ok(100), ok(100)],
        }}
        summary = report.summarize(runs, "lariat")["seq-1k"]
        ratio = summary["ratios"]["ahc"]
        self.assertEqual(ratio["runs"], 2)
        self.assertEqual(ratio["median"], 2.5)
        self.assertEqual((ratio["min"], ratio["max"]), (2.0, 3.0))
        self.assertEqual(summary["clients"]["lariat"]["ok"], 2)
        checks = {c["what"]: c["met"] for c in summary["targets"]}
        self.assertTrue(checks[">= 2x ahc"])
        self.assertIsNone(checks[">= 0.7x wrk"])
        issue9 = {c["what"]: c["met"] for c in summary["issue9_targets"]}
        self.assertTrue(issue9[">= 2x ahc"])
        self.assertIsNone(issue9[">= 0.75x wrk"])

    def test_the_executor_preference_has_its_own_issue9_floor_against_wrk(self):
        ok = lambda value: {"status": "ok", "value": value, "fields": {}, "rss_kib": 1000}
        runs = {"seq-1k": {"lariat-loop": [ok(80)], "lariat": [ok(80)], "wrk": [ok(100)]}}
        loop = {c["what"]: c["met"] for c in report.summarize(runs, "lariat-loop")["seq-1k"]["issue9_targets"]}
        plain = {c["what"]: c["met"] for c in report.summarize(runs, "lariat")["seq-1k"]["issue9_targets"]}
        self.assertFalse(loop[">= 0.85x wrk"])
        self.assertTrue(plain[">= 0.75x wrk"])

    def test_stream_target_is_ahc_throughput_and_rss_under_32_mib(self):
        record = lambda value, rss: {"status": "ok", "value": value, "fields": {}, "rss_kib": rss}
        runs = {"stream-100m": {"lariat": [record(900, 20000), record(1100, 40000), record(1000, 30000)],
                                "ahc": [record(1000, 50000)] * 3}}
        summary = report.summarize(runs, "lariat")["stream-100m"]
        checks = {c["what"]: c["met"] for c in summary["issue12_targets"]}
        self.assertTrue(checks[">= 1x ahc"])              # median of 0.9, 1.1, 1.0
        self.assertTrue(checks["peak RSS <= 32 MiB"])    # median RSS 30,000 KiB
        runs["stream-100m"]["lariat"][2] = record(1000, 32 * 1024)
        checks = {c["what"]: c["met"] for c in report.summarize(runs, "lariat")["stream-100m"]["issue12_targets"]}
        self.assertFalse(checks["peak RSS <= 32 MiB"])   # "under 32 MiB": 32,768 KiB misses

    def test_stream_case_runs_every_client_against_the_100m_file(self):
        with TemporaryDirectory() as tmp:
            ctx = context(Path(tmp))
            case = CASES_BY_NAME["stream-100m"]
            invocation = clients.peer(Path("/bin/peer-lariat"), "lariat", case, ctx)
            self.assertEqual(invocation.argv[invocation.argv.index("--workload") + 1], "stream")
            self.assertEqual(invocation.argv[invocation.argv.index("--url") + 1], "http://127.0.0.1:1/100m.bin")
            curl = clients.curl(case, ctx)
            config = Path(curl.argv[-1]).read_text()
            self.assertIn('output = "/dev/null"', config)
            self.assertEqual(curl.parse("0.5 200 104857600 0 1\n", 1.0)["mbps"], 104857600 / 0.5 / 1e6)


if __name__ == "__main__":
    unittest.main()


class RowCaseTests(unittest.TestCase):
    """The OpenAPI and WebSocket rows: their peers run only their cases, and no other client does."""

    def test_row_peers_run_only_their_cases(self):
        from runner.cases import runs_case
        openapi, echo, seq = CASES_BY_NAME["openapi-seq-1k"], CASES_BY_NAME["ws-echo-seq"], CASES_BY_NAME["seq-1k"]
        self.assertTrue(runs_case("openapi-ahc", openapi))
        self.assertFalse(runs_case("lariat", openapi))
        self.assertFalse(runs_case("ws-nio", openapi))
        self.assertTrue(runs_case("ws-lariat", echo))
        self.assertFalse(runs_case("curl", echo))
        self.assertFalse(runs_case("openapi-lariat", seq))
        self.assertFalse(runs_case("ws-lariat", seq))
        self.assertTrue(runs_case("lariat", seq))

    def test_ws_case_url_and_argv(self):
        with TemporaryDirectory() as tmp:
            ctx = context(Path(tmp))
            ctx.ws_base = "ws://127.0.0.1:3/"
            case = CASES_BY_NAME["ws-echo-concurrent-64"]
            invocation = clients.peer(Path("/x/peer-ws-nio"), "ws-nio", case, ctx)
            self.assertEqual(invocation.argv[invocation.argv.index("--url") + 1], "ws://127.0.0.1:3/")
            self.assertEqual(invocation.argv[invocation.argv.index("--concurrency") + 1], "64")
            self.assertEqual(ctx.url(CASES_BY_NAME["openapi-seq-1k"]), "http://127.0.0.1:1/1k.json")

    def test_rows_not_in_defaults(self):
        from runner.cases import CASES, DEFAULT_CLIENTS
        self.assertNotIn("openapi-seq-1k", [case.name for case in CASES])
        self.assertNotIn("ws-lariat", DEFAULT_CLIENTS)
        self.assertNotIn("openapi-lariat", DEFAULT_CLIENTS)
