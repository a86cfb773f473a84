#!/usr/bin/env python3
"""WebSocket servers on loopback for Lariat's WebSocketRequest tests (Tests/ClientTests/WebSocket*).

Two listeners, both on 127.0.0.1, ports given on the command line:
- `--port`: Python `websockets` (scripts/requirements-test.txt), a conforming server:
    /echo        echoes every message (text as text, binary as binary)
    /fragmented  sends "Hello, fragmented world" in three fragments, then echoes
    /close       on the first message, closes with 4001 "bye"
    /ping        pings the client, waits for its pong, then sends "pong received"
    /subprotocol sends the subprotocol it chose ("none" when none)
    /extensions  sends the Sec-WebSocket-Extensions it answered ("none" when none)
    /bomb        sends 8 MiB of zeros as one message (about 8 KiB once deflated)
    /flood       sends 64 MiB as 1,024 binary messages of 64 KiB, then closes with 1000
  It accepts permessage-deflate with whatever parameters the client asks for.
- `--deflate-port`: the same paths, but permessage-deflate imposed with every parameter:
    server_no_context_takeover, client_no_context_takeover, server_max_window_bits=10,
    client_max_window_bits=9 (the client must honour the last two it did not ask for).
- `--raw-port`: a hand-written server that breaks the protocol on purpose (no websockets code):
    /bad-accept  answers 101 with a wrong Sec-WebSocket-Accept
    /masked      a valid 101, then a masked text frame (servers must not mask, RFC 6455 §5.1)
    /abrupt      a valid 101 and "hi" in the same write, then closes TCP without a close frame
    /oversized   a valid 101, then a binary frame announcing 2 MiB
    /refuse      answers 404
    /silent      a valid 101, then never sends anything (pings go unanswered)
    /late        a valid 101; when the client's close arrives, sends text "late 1" and "late 2"
                 (data sent before it saw that close), then its close 1000 "bye" (issue 22)
With `--cert`/`--key` both listeners speak TLS.
"""
import argparse
import asyncio
import base64
import hashlib
import os
import ssl

from websockets.asyncio.server import serve
from websockets.extensions.permessage_deflate import ServerPerMessageDeflateFactory

GUID = b"258EAFA5-E914-47DA-95CA-C5AB0DC85B11"


def choose(connection, offered):
    """The first offered of ours; none (not a refusal) when the client offers none of them."""
    return next((name for name in offered if name in ("chat", "superchat")), None)


async def conforming(ws):
    path = ws.request.path
    if path == "/fragmented":
        await ws.send(["Hello, ", "fragmented ", "world"])
    elif path == "/ping":
        pong = await ws.ping(b"lariat")
        await pong
        await ws.send("pong received")
    elif path == "/subprotocol":
        await ws.send(ws.subprotocol or "none")
    elif path == "/extensions":
        await ws.send(ws.response.headers.get("Sec-WebSocket-Extensions", "none"))
    elif path == "/bomb":
        await ws.send(bytes(8 * 1024 * 1024))
    elif path == "/flood":
        chunk = os.urandom(64 * 1024)
        for _ in range(1024):
            await ws.send(chunk)
        await ws.close(1000, "flooded")
        return
    async for message in ws:
        if path == "/close":
            await ws.close(4001, "bye")
            return
        await ws.send(message)


async def late_after_close(reader, writer):
    """Reads the client's (masked) frames until its close, then answers with two text frames
    and only then its own close, as a peer that had not yet seen the client's close would."""
    try:
        while True:
            first, second = await reader.readexactly(2)
            length = second & 0x7F
            if length == 126:
                length = int.from_bytes(await reader.readexactly(2), "big")
            elif length == 127:
                length = int.from_bytes(await reader.readexactly(8), "big")
            await reader.readexactly(4 + length)  # mask and payload
            if first & 0x0F == 0x8:
                break
        for text in (b"late 1", b"late 2"):
            writer.write(bytes([0x81, len(text)]) + text)
        writer.write(bytes([0x88, 5]) + (1000).to_bytes(2, "big") + b"bye")
        await writer.drain()
    except (asyncio.IncompleteReadError, ConnectionError):
        pass
    writer.close()


async def raw(reader, writer):
    try:
        head = await reader.readuntil(b"\r\n\r\n")
    except (asyncio.IncompleteReadError, asyncio.LimitOverrunError):
        writer.close()
        return
    lines = head.decode("latin-1").split("\r\n")
    path = lines[0].split(" ")[1]
    key = b""
    for line in lines[1:]:
        name, _, value = line.partition(":")
        if name.strip().lower() == "sec-websocket-key":
            key = value.strip().encode()
    accept = base64.b64encode(hashlib.sha1(key + GUID).digest())
    if path == "/refuse":
        writer.write(b"HTTP/1.1 404 Not Found\r\nContent-Length: 9\r\n\r\nnot found")
        await writer.drain()
        writer.close()
        return
    if path == "/bad-accept":
        accept = base64.b64encode(hashlib.sha1(b"not the key" + GUID).digest())
    response = (b"HTTP/1.1 101 Switching Protocols\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
                b"Sec-WebSocket-Accept: " + accept + b"\r\n\r\n")
    if path == "/masked":
        payload = b"masked"
        mask = b"\x01\x02\x03\x04"
        body = bytes(b ^ mask[i % 4] for i, b in enumerate(payload))
        response += bytes([0x81, 0x80 | len(payload)]) + mask + body
    elif path == "/abrupt":
        response += b"\x81\x02hi"
    elif path == "/oversized":
        response += bytes([0x82, 127]) + (2 * 1024 * 1024).to_bytes(8, "big") + b"x" * 1024
    writer.write(response)
    await writer.drain()
    if path == "/abrupt":
        writer.close()
        return
    if path == "/late":
        await late_after_close(reader, writer)
        return
    # Keep the connection until the client closes it (it must fail the connection itself).
    try:
        while await reader.read(4096):
            pass
    except ConnectionError:
        pass
    writer.close()


async def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--port", type=int, required=True)
    parser.add_argument("--raw-port", type=int, required=True)
    parser.add_argument("--deflate-port", type=int)
    parser.add_argument("--cert")
    parser.add_argument("--key")
    args = parser.parse_args()
    context = None
    if args.cert:
        context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
        context.load_cert_chain(args.cert, args.key)
    raw_server = await asyncio.start_server(raw, "127.0.0.1", args.raw_port, ssl=context)
    async with serve(conforming, "127.0.0.1", args.port, ssl=context, select_subprotocol=choose,
                     max_size=4 * 1024 * 1024, ping_interval=None):
        async with raw_server:
            if args.deflate_port is None:
                await asyncio.Future()
            strict = ServerPerMessageDeflateFactory(
                server_no_context_takeover=True, client_no_context_takeover=True,
                server_max_window_bits=10, client_max_window_bits=9)
            async with serve(conforming, "127.0.0.1", args.deflate_port, ssl=context, extensions=[strict],
                             compression=None, max_size=4 * 1024 * 1024, ping_interval=None):
                await asyncio.Future()


if __name__ == "__main__":
    asyncio.run(main())
