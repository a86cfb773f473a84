#!/usr/bin/env python3
"""A TLS terminator on loopback: accepts TLS with CERT/KEY on an ephemeral port and relays the
plaintext to 127.0.0.1:TARGET, both ways, one thread pair per connection. Put in front of the
tests' plain HTTP proxy (Tests/Support/TestProxyServer.swift) it makes a real HTTPS proxy: TLS to
the proxy, then CONNECT and the origin's own TLS inside it, or absolute-form requests.

Usage: tls-front.py CERT KEY TARGET_PORT
Prints the listening port on its first line, then serves until stdin closes (the test's handle).
"""
import socket
import ssl
import sys
import threading


def pump(source, sink):
    try:
        while True:
            data = source.recv(65536)
            if not data:
                break
            sink.sendall(data)
    except OSError:
        pass
    finally:
        for s in (source, sink):
            try:
                s.shutdown(socket.SHUT_RDWR)
            except OSError:
                pass


def serve(raw, context, target):
    try:
        tls = context.wrap_socket(raw, server_side=True)
    except (ssl.SSLError, OSError):
        raw.close()  # a client that refused our certificate: nothing to relay
        return
    try:
        upstream = socket.create_connection(("127.0.0.1", target))
    except OSError:
        tls.close()
        return
    threading.Thread(target=pump, args=(tls, upstream), daemon=True).start()
    pump(upstream, tls)


def main():
    cert, key, target = sys.argv[1], sys.argv[2], int(sys.argv[3])
    context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
    context.load_cert_chain(cert, key)
    listener = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    listener.bind(("127.0.0.1", 0))
    listener.listen(64)
    print(listener.getsockname()[1], flush=True)

    def accept():
        while True:
            raw, _ = listener.accept()
            threading.Thread(target=serve, args=(raw, context, target), daemon=True).start()

    threading.Thread(target=accept, daemon=True).start()
    sys.stdin.read()  # the test closes its end: stop


if __name__ == "__main__":
    main()
