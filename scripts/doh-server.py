#!/usr/bin/env python3
"""A scripted DNS-over-HTTPS server on loopback (RFC 8484, POST application/dns-message) for
fetch's --doh-url tests: TLS with CERT/KEY, answers from a fixed table keyed by the query's
first label, and a log of every query it decoded (name and type) appended to LOG.

Names (first label decides; every answer echoes the question, ID 0 as curl sends):
  a        A 127.0.0.1 (AAAA: no answer)         six      AAAA ::1 (A: no answer)
  cname    CNAME target.test then A 127.0.0.1    nx       RCODE 3 (NXDOMAIN)
  trunc    the A answer cut in its RDATA         bad      20 bytes of 0xff
  big      over 3000 bytes of A records          wrongid  ID 0x1234
  onlycname  CNAME, no address                   loop     CNAME whose name points at itself
  slow     no HTTP answer for 30 s
anything else: NOERROR, no answer.

Usage: doh-server.py CERT KEY LOG
Prints the listening port, appends "name type" lines to LOG per query, serves until stdin closes.
"""
import socket
import ssl
import struct
import sys
import threading
import time


def question(query):
    """The question section's bytes, the name and the type."""
    index, labels = 12, []
    while query[index]:
        length = query[index]
        labels.append(query[index + 1:index + 1 + length].decode("ascii", "replace"))
        index += 1 + length
    index += 1
    qtype = struct.unpack(">H", query[index:index + 2])[0]
    return query[12:index + 4], ".".join(labels), qtype


def record(rtype, rdata, name=b"\xc0\x0c"):
    return name + struct.pack(">HHIH", rtype, 1, 60, len(rdata)) + rdata


def answer(query):
    section, name, qtype = question(query)
    first = name.split(".")[0]
    header = lambda ident, rcode, count: struct.pack(">HHHHHH", ident, 0x8180 | rcode, 1, count, 0, 0)
    a = record(1, bytes([127, 0, 0, 1]))
    six = record(28, bytes(15) + b"\x01")
    if first == "a":
        return header(0, 0, 1) + section + a if qtype == 1 else header(0, 0, 0) + section
    if first == "six":
        return header(0, 0, 1) + section + six if qtype == 28 else header(0, 0, 0) + section
    if first == "cname":
        target = b"\x06target\x04test\x00"
        if qtype != 1:
            return header(0, 0, 1) + section + record(5, target)
        # CNAME at offset 12+len(section); its RDATA (the target) is 12 bytes further on.
        target_offset = 12 + len(section) + 12
        return header(0, 0, 2) + section + record(5, target) + record(1, bytes([127, 0, 0, 1]), struct.pack(">H", 0xC000 | target_offset))
    if first == "onlycname":
        return header(0, 0, 1) + section + record(5, b"\x06target\x04test\x00")
    if first == "loop":
        # The RDATA is a pointer to itself: a name that never ends.
        rdata_offset = 12 + len(section) + 12
        return header(0, 0, 1) + section + record(5, struct.pack(">H", 0xC000 | rdata_offset))
    if first == "nx":
        return header(0, 3, 0) + section
    if first == "trunc":
        return (header(0, 0, 1) + section + a)[:-2]
    if first == "bad":
        return b"\xff" * 20
    if first == "wrongid":
        return header(0x1234, 0, 1) + section + a
    if first == "big":
        return header(0, 0, 200) + section + a * 200
    return header(0, 0, 0) + section


def serve(raw, context, log):
    try:
        tls = context.wrap_socket(raw, server_side=True)
    except (ssl.SSLError, OSError):
        raw.close()
        return
    try:
        stream = tls.makefile("rb")
        while True:
            line = stream.readline()
            if not line:
                break
            length = 0
            while True:
                field = stream.readline()
                if field in (b"\r\n", b"\n", b""):
                    break
                name, _, value = field.decode("latin-1").partition(":")
                if name.strip().lower() == "content-length":
                    length = int(value.strip())
            query = stream.read(length)
            section, name, qtype = question(query)
            with log[0]:
                with open(log[1], "a") as out:
                    out.write("%s %d\n" % (name, qtype))
            if name.split(".")[0] == "slow":
                time.sleep(30)
            body = answer(query)
            tls.sendall(b"HTTP/1.1 200 OK\r\nContent-Type: application/dns-message\r\nContent-Length: %d\r\n\r\n" % len(body) + body)
    except (ssl.SSLError, OSError, ValueError, IndexError, struct.error):
        pass
    finally:
        tls.close()


def main():
    cert, key, path = sys.argv[1], sys.argv[2], sys.argv[3]
    context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
    context.load_cert_chain(cert, key)
    listener = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    listener.bind(("127.0.0.1", 0))
    listener.listen(64)
    print(listener.getsockname()[1], flush=True)
    log = (threading.Lock(), path)

    def accept():
        while True:
            raw, _ = listener.accept()
            threading.Thread(target=serve, args=(raw, context, log), daemon=True).start()

    threading.Thread(target=accept, daemon=True).start()
    sys.stdin.read()


if __name__ == "__main__":
    main()
