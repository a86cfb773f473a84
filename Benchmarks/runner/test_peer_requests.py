"""Every timed request of a Swift peer must reach the server: a client-side cache would measure
the cache, not the client. Runs the built peers (release) against a counting loopback server;
skipped for peers that are not built."""

import functools
import http.server
import os
import subprocess
import threading
import time
import unittest
from pathlib import Path
from tempfile import TemporaryDirectory

RELEASE = Path(__file__).resolve().parent.parent / ".build" / "release"


class CountingHandler(http.server.SimpleHTTPRequestHandler):
    protocol_version = "HTTP/1.1"  # keep-alive, as nginx
    served = 0
    lock = threading.Lock()

    def do_GET(self):
        with CountingHandler.lock:
            CountingHandler.served += 1
        super().do_GET()

    def log_message(self, *args):
        pass


class PeerRequestsReachTheServer(unittest.TestCase):
    def check(self, name: str):
        binary = RELEASE / f"peer-{name}"
        if not binary.exists():
            self.skipTest(f"{binary} not built")
        with TemporaryDirectory() as docroot:
            path = Path(docroot) / "1k.bin"
            path.write_bytes(os.urandom(1024))
            # Modified a day ago, like nginx's files after a while: with Last-Modified, a
            # heuristically fresh response (RFC 9111 4.2.2) for a cache that keeps it.
            day_ago = time.time() - 86400
            os.utime(path, (day_ago, day_ago))
            server = http.server.ThreadingHTTPServer(
                ("127.0.0.1", 0), functools.partial(CountingHandler, directory=docroot))
            thread = threading.Thread(target=server.serve_forever, daemon=True)
            thread.start()
            try:
                CountingHandler.served = 0
                url = f"http://127.0.0.1:{server.server_address[1]}/1k.bin"
                result = subprocess.run([str(binary), "--workload", "seq", "--url", url, "--requests", "20",
                                         "--warmup", "0"], capture_output=True, text=True, timeout=60)
                self.assertEqual(result.returncode, 0, result.stderr)
                self.assertEqual(CountingHandler.served, 20, "the peer answered requests without the server")
            finally:
                server.shutdown()
                server.server_close()

    def test_lariat(self):
        self.check("lariat")

    def test_ahc(self):
        self.check("ahc")

    def test_urlsession(self):
        self.check("urlsession")


if __name__ == "__main__":
    unittest.main()
