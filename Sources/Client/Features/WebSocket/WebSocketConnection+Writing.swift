// Writing on a WebSocket connection: frames are serialized (masked with a fresh key each) into
// one outgoing buffer, written as the socket takes them (through the TLS engine for wss), and the
// sender's completion runs once the socket took its frame's last byte. Runs on the connection's
// loop, like everything in WebSocketConnection.

import Wire
import EventLoop
import TLS
import Transport

extension WebSocketConnection {
    func queueFrame(_ opcode: WebSocketOpcode, _ payload: [UInt8]) throws(WebSocketError) {
        let before = outgoing.count
        try WebSocketSerializer.appendFrame(opcode: opcode, payload: payload, mask: Self.freshMask(), into: &outgoing)
        queued += outgoing.count - before
    }

    func queueClose(_ code: WebSocketCloseCode?, reason: [UInt8]) {
        var payload: [UInt8] = []
        if let code { payload = [UInt8(code.rawValue >> 8), UInt8(code.rawValue & 0xFF)] + reason }
        // A reason the peer sent is valid; one of ours was checked by the request.
        if (try? queueFrame(.close, payload)) == nil { try? queueFrame(.close, []) }
        flush()
    }

    /// A masking key from the system's CSPRNG (RFC 6455 §5.3: unpredictable per frame).
    private static func freshMask() -> WebSocketMaskKey {
        var generator = SystemRandomNumberGenerator()
        return WebSocketMaskKey(UInt32.random(in: 0...UInt32.max, using: &generator))
    }

    /// Writes queued frames until they are out or the socket blocks.
    func flush() {
        guard !isFinished, socket.isOpen else { return }
        while outgoingOffset < outgoing.count {
            let offset = outgoingOffset
            if let tls {
                let result = outgoing.withUnsafeBytes { tls.write(UnsafeRawBufferPointer(rebasing: $0[offset...])) }
                switch result {
                case .written(let n): advance(n)
                case .incomplete: guard flushCiphertext() else { return }
                case .failed(let error): return lost(TransportError(.tls, "TLS write failed: \(error)", underlying: error))
                }
            } else {
                let socket = self.socket
                let result: Result<WriteResult, SocketError> = outgoing.withUnsafeBytes { raw in
                    Result { () throws(SocketError) in try socket.write(UnsafeRawBufferPointer(rebasing: raw[offset...])) }
                }
                switch result {
                case .success(.wrote(let n)): advance(n)
                case .success(.wouldBlock): return socket.setWriteInterest(true)
                case .failure(let error): return lost(TransportError(.connectionLost, "write failed: \(error)", underlying: error))
                }
            }
        }
        outgoing.removeAll(keepingCapacity: true)
        outgoingOffset = 0
        if flushCiphertext() { socket.setWriteInterest(false) }
    }

    private func advance(_ count: Int) {
        outgoingOffset += count
        written += count
        while let first = sendCompletions.first, first.end <= written {
            sendCompletions.removeFirst()
            first.handler(nil)
        }
    }

    /// Moves the engine's ciphertext to the socket; true when all of it went.
    @discardableResult
    func flushCiphertext() -> Bool {
        switch pump.flushCiphertext() {
        case .success(let allWritten):
            return allWritten
        case .failure(let error):
            if !isFinished { lost(TransportError(.connectionLost, "write failed: \(error)", underlying: error)) }
            return false
        }
    }
}
