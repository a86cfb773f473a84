// The bytes of one connection between its socket and, for https and wss, the TLS engine: reads
// into a receive buffer (plain), ciphertext into the engine and plaintext out of it (TLS), and
// the engine's ciphertext out to the socket. Shared by the HTTP/1.1 connection and by the
// WebSocket connection a `101` hands its socket to (UpgradedConnection.swift), which differ only
// in what they do with the bytes and with a failure: the pump reports what happened, its owner
// decides. Runs on the connection's loop, like its owners.

package import EventLoop
package import TLS

/// One connection's socket with its optional TLS engine, and the ciphertext in flight between them.
package struct SocketPump {
    /// What reading ciphertext from the socket gave.
    package enum CiphertextRead {
        /// Ciphertext is pending for the engine, or the socket's end was passed to it.
        case ready
        /// Nothing to read now; the socket will say when.
        case wouldBlock
        /// The read failed.
        case failed(SocketError)
    }

    package let socket: Socket
    package let tls: TLSClientConnection?
    /// Ciphertext read from the socket that the engine has not taken yet.
    package private(set) var cipherPending: [UInt8]
    /// The socket reads into this when the engine is busy, so a read never allocates.
    private var cipherScratch: [UInt8]
    /// The engine's ciphertext being written to the socket, from `cipherOutOffset` on.
    private var cipherOut: [UInt8] = []
    private var cipherOutOffset = 0

    /// - Parameter cipherPending: Ciphertext already read for this engine (what a proxy's tunnel
    ///   or the HTTP/1.1 connection before a `101` read past its own bytes).
    package init(socket: Socket, tls: TLSClientConnection?, cipherPending: [UInt8] = []) {
        self.socket = socket
        self.tls = tls
        self.cipherPending = cipherPending
        cipherScratch = tls == nil ? [] : [UInt8](repeating: 0, count: 32 * 1024)
    }

    // MARK: Plain

    /// Reads what the socket has into `buffer`, which may grow to `maximum` bytes (no TLS).
    ///
    /// - Returns: What the read gave, or its error.
    package func readPlain(into buffer: inout ReceiveBuffer, growingTo maximum: Int) -> Result<ReadResult, SocketError> {
        let socket = self.socket
        var outcome: Result<ReadResult, SocketError> = .success(.wouldBlock)
        _ = buffer.write(growingTo: maximum) { free -> Int in
            do throws(SocketError) {
                let result = try socket.read(into: free)
                outcome = .success(result)
                if case .bytes(let n) = result { return n }
            } catch {
                outcome = .failure(error)
            }
            return 0
        }
        return outcome
    }

    // MARK: TLS

    /// Reads ciphertext from the socket unless some is still pending for the engine; the end of
    /// the stream is passed to the engine (which reports it as a close or a truncation).
    package mutating func receiveCiphertext() -> CiphertextRead {
        guard let tls, cipherPending.isEmpty else { return .ready }
        let result: ReadResult
        do throws(SocketError) {
            let socket = self.socket
            result = try cipherScratch.withUnsafeMutableBytes { raw in
                Result { () throws(SocketError) in try socket.read(into: raw) }
            }.get()
        } catch {
            return .failed(error)
        }
        switch result {
        case .bytes(let n): cipherPending.append(contentsOf: cipherScratch[0..<n])
        case .endOfStream: tls.receiveEndOfStream()
        case .wouldBlock: return .wouldBlock
        }
        return .ready
    }

    /// Gives the engine as much of the pending ciphertext as it takes.
    package mutating func feedCiphertext() {
        guard let tls, !cipherPending.isEmpty else { return }
        let taken = cipherPending.withUnsafeBytes { tls.receiveCiphertext($0) }
        cipherPending.removeFirst(taken)
    }

    /// Adds ciphertext read elsewhere (a proxy tunnel's leftover) to what the engine gets next.
    package mutating func appendCiphertext(_ bytes: [UInt8]) {
        cipherPending.append(contentsOf: bytes)
    }

    /// Takes the pending ciphertext out (for the protocol a `101` hands the socket to).
    package mutating func takePendingCiphertext() -> [UInt8] {
        defer { cipherPending = [] }
        return cipherPending
    }

    /// Moves one read's worth of plaintext out of the engine into `buffer`, which may grow to
    /// `maximum` bytes.
    ///
    /// - Returns: The engine's answer; `.incomplete` also without an engine.
    package func readPlaintext(into buffer: inout ReceiveBuffer, growingTo maximum: Int) -> TLSReadResult {
        guard let tls else { return .incomplete(.read) }
        var readResult: TLSReadResult = .incomplete(.read)
        _ = buffer.write(growingTo: maximum) { free -> Int in
            readResult = tls.read(into: free)
            if case .bytes(let n) = readResult { return n }
            return 0
        }
        return readResult
    }

    /// Moves the engine's ciphertext to the socket until it is all out or the socket blocks (then
    /// with write interest on).
    ///
    /// - Returns: true when everything was written (or there is no engine), false when the
    ///   socket blocked; the write's error, with the unwritten ciphertext dropped.
    package mutating func flushCiphertext() -> Result<Bool, SocketError> {
        guard let tls else { return .success(true) }
        while true {
            if cipherOutOffset == cipherOut.count {
                guard tls.pendingCiphertextCount > 0 else {
                    cipherOut.removeAll(keepingCapacity: true)
                    cipherOutOffset = 0
                    return .success(true)
                }
                cipherOut = tls.takeCiphertext()
                cipherOutOffset = 0
            }
            let offset = cipherOutOffset
            let socket = self.socket
            let result: Result<WriteResult, SocketError> = cipherOut.withUnsafeBytes { raw in
                Result { () throws(SocketError) in try socket.write(UnsafeRawBufferPointer(rebasing: raw[offset...])) }
            }
            switch result {
            case .success(.wrote(let n)): cipherOutOffset += n
            case .success(.wouldBlock):
                socket.setWriteInterest(true)
                return .success(false)
            case .failure(let error):
                cipherOut.removeAll(keepingCapacity: true)
                cipherOutOffset = 0
                return .failure(error)
            }
        }
    }
}
