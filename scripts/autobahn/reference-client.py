#!/usr/bin/env python3
"""Reference client driver for the Autobahn|Testsuite fuzzingserver: Python `websockets`,
known to pass the suite. Used to check that our Python 3 port of the suite gives the right
verdicts (scripts/autobahn/README.md). Usage: reference-client.py URL AGENT [CASES]
CASES: comma-separated case ids ("1.1.1,12.1.*"); default every case."""
import asyncio
import fnmatch
import json
import sys

from websockets.asyncio.client import connect
from websockets.exceptions import ConnectionClosed


async def run_case(url, n, agent):
    try:
        async with connect(f"{url}/runCase?case={n}&agent={agent}", max_size=2**25,
                           compression="deflate", open_timeout=10, close_timeout=5) as ws:
            async for message in ws:
                await ws.send(message)
    except ConnectionClosed:
        pass
    except Exception as error:  # a case that breaks the handshake on purpose
        print(f"case {n}: {type(error).__name__}: {error}", file=sys.stderr)


async def main():
    url, agent = sys.argv[1], sys.argv[2]
    patterns = sys.argv[3].split(",") if len(sys.argv) > 3 else ["*"]
    async with connect(f"{url}/getCaseCount") as ws:
        count = json.loads(await ws.recv())
    ran = 0
    for n in range(1, count + 1):
        async with connect(f"{url}/getCaseInfo?case={n}") as ws:
            info = json.loads(await ws.recv())
        if not any(fnmatch.fnmatchcase(info["id"], p) for p in patterns):
            continue
        await run_case(url, n, agent)
        ran += 1
    async with connect(f"{url}/updateReports?agent={agent}") as ws:
        try:
            await ws.recv()
        except ConnectionClosed:
            pass
    print(f"ran {ran} of {count} cases", file=sys.stderr)


asyncio.run(main())
