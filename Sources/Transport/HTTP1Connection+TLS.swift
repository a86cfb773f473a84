// The TLS side of an HTTP/1.1 connection: ciphertext from the socket into the engine, the
// handshake, and plaintext out of the engine into the receive buffer, where the parser reads it.
// Runs on the connection's loop, like everything in HTTP1Connection.
//
// Two rules learned the hard way (HTTPSTransportTests):
// - Plaintext can already sit in the engine when no socket event will announce it (it came in
//   the same segment as the server's last handshake flight): a request that starts drains the
//   engine before waiting for the socket.
// - Keep-alive is decided only after the engine has been asked for more plaintext: a record that
//   arrived behind the response would otherwise be read by the next request as its own.

import FoundationEssentials
import Wire
import EventLoop
import TLS

extension HTTP1Connection {
    func readTLS() {
        guard tls != nil else { return }
        // Ciphertext from the socket into the TLS engine (whatever it did not take stays pending).
        switch pump.receiveCiphertext() {
        case .ready: break
        case .wouldBlock: return
        case .failed(let error):
            return perform(machine.connectionFailed(TransportError(.connectionLost, "read failed: \(error)", underlying: error)))
        }
        pump.feedCiphertext()
        if machine.isHandshaking {
            driveHandshake()  // starts the request on completion, which drains what came with it
            return
        }
        if machine.isIdle {
            // Ciphertext on an idle connection: a late session ticket is harmless, anything that
            // decrypts to plaintext (or a close) is not.
            return readPlaintext()
        }
        perform(machine.bytesReceived(now: .now()))
        readPlaintext()
    }

    /// Moves plaintext out of the engine into the receive buffer and parses it, until the engine
    /// needs more ciphertext.
    func readPlaintext() {
        guard tls != nil else { return }
        while !machine.isClosed, !machine.isUpgraded, !machine.isReadPaused {
            switch pump.readPlaintext(into: &inbound, growingTo: Self.maxReceiveBuffer) {
            case .bytes:
                if machine.isIdle {
                    // Plaintext after the response ended: the server sent more than one response.
                    return perform(machine.bytesReceived(now: .now()))
                }
                processInbound()
            case .incomplete:
                flushCiphertext()
                if !pump.cipherPending.isEmpty { pump.feedCiphertext(); continue }
                return
            case .closed(let clean):
                return perform(machine.endOfStream(cleanTLSClose: clean))
            case .failed(let error):
                return perform(machine.connectionFailed(TransportError(.tls, "TLS read failed: \(error)", underlying: error), retryable: false))
            }
        }
    }

    func driveHandshake() {
        guard let tls, machine.isHandshaking, let exchange else { return }
        pump.feedCiphertext()  // records a proxy's tunnel carried before the connection existed
        switch tls.handshake() {
        case .complete:
            flushCiphertext()
            exchange.timings.secureConnectionEnd = Date()
            exchange.timings.connectEnd = exchange.timings.secureConnectionEnd
            guard let run = machine.handshakeCompleted() else { return }
            cancelTimer()
            start(run.exchange, reused: false)
        case .incomplete:
            flushCiphertext()
        case .failed(let error):
            flushCiphertext()
            perform(machine.connectionFailed(TransportError(.tls, "TLS handshake with \(key.host) failed: \(error)", underlying: error), retryable: false))
        }
    }

    /// Whether bytes beyond the response are buffered: in the receive buffer, or (TLS) as
    /// plaintext the engine can already decrypt.
    func hasLeftoverBytes() -> Bool {
        if inbound.readableCount > 0 { return true }
        guard let tls else { return false }
        pump.feedCiphertext()
        var leftover = false
        _ = inbound.write { free -> Int in
            switch tls.read(into: free) {
            case .bytes(let n):
                leftover = true
                return n
            case .closed, .failed:
                leftover = true
                return 0
            case .incomplete:
                return 0
            }
        }
        return leftover
    }

}

extension HTTP1Connection {
    /// Takes the bytes a proxy's tunnel carried from the origin before this connection existed:
    /// TLS records go to the engine's pending ciphertext, plaintext to the receive buffer.
    func adoptTunnelLeftover(_ bytes: [UInt8]) {
        if tls != nil {
            pump.appendCiphertext(bytes)
            return
        }
        // At most the proxy's answer limit (16 KiB): fits the buffer's first growth steps.
        var remaining = bytes[...]
        while !remaining.isEmpty {
            let written = inbound.write(growingTo: Self.maxReceiveBuffer) { free -> Int in
                let count = min(free.count, remaining.count)
                remaining.withUnsafeBytes { source in
                    free.copyMemory(from: UnsafeRawBufferPointer(rebasing: source[..<count]))
                }
                return count
            }
            remaining = remaining.dropFirst(written)
        }
    }
}
