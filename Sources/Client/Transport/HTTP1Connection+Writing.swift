// Writing one request on an HTTP/1.1 connection: the head and body go out in one writev over
// plain TCP (no copy of the body), or through the TLS engine and then its ciphertext to the socket.
// A file body is read as the socket drains (OutgoingBody). Runs on the connection's loop, like
// everything in HTTP1Connection.

import FoundationEssentials
import EventLoop
import TLS

extension HTTP1Connection {
    /// Head and body bytes of the active exchange.
    var totalToWrite: Int { headBytes.count + body.length }

    /// Fails the exchange whose body file could not be read mid-request (never retried).
    func bodyUnreadable(_ error: SocketError) {
        failActive(TransportError(.requestBodyUnreadable, "reading the request body failed: \(error)", underlying: error), allowRetry: false)
    }

    func writeRequest() {
        guard case .active = state else { return }
        if tls != nil { return writeRequestOverTLS() }
        while written < totalToWrite {
            let result: WriteResult
            do throws(SocketError) {
                result = try writePlain()
            } catch where error.syscall == "read" || error.syscall == "open" {
                return bodyUnreadable(error)
            } catch {
                return failActive(TransportError(.connectionLost, "write failed: \(error)", underlying: error))
            }
            switch result {
            case .wrote(let n): written += n
            case .wouldBlock:
                socket.setWriteInterest(true)
                return
            }
        }
        requestWritten()
    }

    /// One writev of what is left of the head and the next body bytes: no copy of the body,
    /// one syscall for small requests. A `read` failure is the body file's, not the socket's.
    func writePlain() throws(SocketError) -> WriteResult {
        let headCount = headBytes.count
        let offset = written
        let socket = self.socket
        let result: Result<WriteResult, SocketError> = headBytes.withUnsafeBytes { head in
            Result { () throws(SocketError) in
                try body.withNextBytes { next in
                    // At most two pieces, on the stack (an array here was one allocation per request).
                    withUnsafeTemporaryAllocation(of: UnsafeRawBufferPointer.self, capacity: 2) { pieces in
                        var count = 0
                        if offset < headCount {
                            pieces.initializeElement(at: count, to: UnsafeRawBufferPointer(rebasing: head[offset...]))
                            count += 1
                        }
                        if !next.isEmpty {
                            pieces.initializeElement(at: count, to: next)
                            count += 1
                        }
                        let list = UnsafeBufferPointer(rebasing: pieces[0..<count])
                        return Result { () throws(SocketError) in try socket.writev(list) }
                    }
                }
            }.flatMap { $0 }
        }
        let outcome = try result.get()
        if case .wrote(let n) = outcome { body.didWrite(max(0, n - max(0, headCount - offset))) }
        return outcome
    }

    func writeRequestOverTLS() {
        guard let tls else { return }
        while written < totalToWrite {
            let headCount = headBytes.count
            let result: TLSWriteResult
            if written < headCount {
                result = headBytes.withUnsafeBytes { tls.write(UnsafeRawBufferPointer(rebasing: $0[written...])) }
            } else {
                do throws(SocketError) {
                    result = try body.withNextBytes { tls.write($0) }
                } catch {
                    return bodyUnreadable(error)
                }
                if case .written(let n) = result { body.didWrite(n) }
            }
            switch result {
            case .written(let n):
                written += n
            case .incomplete:
                guard flushCiphertext() else { return }  // resumes in socketWritable
            case .failed(let error):
                return failActive(TransportError(.tls, "TLS write failed: \(error)", underlying: error))
            }
        }
        guard flushCiphertext() else { return }
        requestWritten()
    }

    func requestWritten() {
        socket.setWriteInterest(false)
        summary?.timings.requestEnd = Date()
    }

    /// Moves pending ciphertext to the socket; returns true when everything was written.
    @discardableResult
    func flushCiphertext() -> Bool {
        guard let tls else { return true }
        while true {
            if cipherOutOffset == cipherOut.count {
                guard tls.pendingCiphertextCount > 0 else {
                    cipherOut.removeAll(keepingCapacity: true)
                    cipherOutOffset = 0
                    return true
                }
                cipherOut = tls.takeCiphertext()
                cipherOutOffset = 0
            }
            let result: WriteResult
            do throws(SocketError) {
                let offset = cipherOutOffset
                let socket = self.socket
                result = try cipherOut.withUnsafeBytes { raw in
                    Result { () throws(SocketError) in try socket.write(UnsafeRawBufferPointer(rebasing: raw[offset...])) }
                }.get()
            } catch {
                failConnection(TransportError(.connectionLost, "write failed: \(error)", underlying: error))
                return false
            }
            switch result {
            case .wrote(let n): cipherOutOffset += n
            case .wouldBlock:
                socket.setWriteInterest(true)
                return false
            }
        }
    }
}
