// Writing one request on an HTTP/1.1 connection: the head and body go out in one writev over
// plain TCP (no copy of the body), or through the TLS engine and then its ciphertext to the socket.
// A file body is read as the socket drains (OutgoingBody). How far it may go is the machine's
// `writableLimit` (the head alone while a `100 Continue` is awaited). Runs on the connection's
// loop, like everything in HTTP1Connection.

import FoundationEssentials
import EventLoop
import TLS

extension HTTP1Connection {
    /// Fails the exchange whose body file could not be read mid-request (never retried: the
    /// request itself is at fault).
    func bodyUnreadable(_ error: SocketError) {
        failActive(TransportError(.requestBodyUnreadable, "reading the request body failed: \(error)", underlying: error), retryable: false)
    }

    /// The socket refused more bytes (reset, or the server stopped reading). The response may
    /// already be on its way (a 413 before the server closes), so reading goes on; the machine
    /// decides.
    func writeFailed(_ error: SocketError) {
        socket.setWriteInterest(false)
        perform(machine.writeFailed())
    }

    /// Writes what the machine allows, until it is out or the socket blocks.
    func writeRequest() {
        guard machine.isActive else { return }
        if tls != nil { return writeRequestOverTLS() }
        while machine.isActive && machine.written < machine.writableLimit {
            let result: WriteResult
            do throws(SocketError) {
                if machine.written >= headBytes.count, try body.isPausedForSource() {
                    return socket.setWriteInterest(false)  // resumes in bodySourceReady
                }
                result = try writePlain(offset: machine.written, limit: machine.writableLimit)
            } catch where error.syscall == "read" || error.syscall == "open" {
                return bodyUnreadable(error)
            } catch {
                return writeFailed(error)
            }
            syncBodyLength()
            switch result {
            case .wrote(let n):
                perform(machine.bytesWritten(n, now: .now()))
                reportBodySent()
            case .wouldBlock:
                socket.setWriteInterest(true)
                return
            }
        }
        requestWritten()
    }

    /// One writev of what is left of the head and, when `limit` allows the body, the next body
    /// bytes: no copy of the body, one syscall for small requests. A `read` failure is the body
    /// file's, not the socket's.
    func writePlain(offset: Int, limit: Int) throws(SocketError) -> WriteResult {
        let headCount = headBytes.count
        let sendsBody = limit > headCount
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
                        if sendsBody && !next.isEmpty {
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
        while machine.isActive && machine.written < machine.writableLimit {
            let headCount = headBytes.count
            let written = machine.written
            let result: TLSWriteResult
            if written < headCount {
                result = headBytes.withUnsafeBytes { tls.write(UnsafeRawBufferPointer(rebasing: $0[written...])) }
            } else {
                do throws(SocketError) {
                    if try body.isPausedForSource() {
                        if flushCiphertext() { socket.setWriteInterest(false) }
                        return  // resumes in bodySourceReady
                    }
                    result = try body.withNextBytes { tls.write($0) }
                } catch {
                    return bodyUnreadable(error)
                }
                if case .written(let n) = result { body.didWrite(n) }
                syncBodyLength()
            }
            switch result {
            case .written(let n):
                perform(machine.bytesWritten(n, now: .now()))
                reportBodySent()
            case .incomplete:
                guard flushCiphertext() else { return }  // resumes in socketWritable
            case .failed(let error):
                return perform(machine.connectionFailed(TransportError(.tls, "TLS write failed: \(error)", underlying: error), retryable: false))
            }
        }
        guard flushCiphertext() else { return }
        requestWritten()
    }

    /// A paused stream body has bytes again (its ready handler, on this loop): write on.
    func bodySourceReady() {
        guard body.isWaitingForSource else { return }
        body.sourceBecameReady()
        writeRequest()
    }

    /// Installs the ready handler of a pausable stream body, holding the connection weakly (the
    /// source may outlive the request).
    func watchBodySource(_ body: RequestBody?) {
        guard case .stream(let box, _)? = body, let source = box.stream as? any PausableBodySource else { return }
        let weakSelf = LoopBound(WeakConnection(self), loop: loop)
        source.setReadyHandler { weakSelf.loop.execute { weakSelf.value.connection?.bodySourceReady() } }
    }

    /// Tells the machine a chunked body's length once its stream ended (OutgoingBody.swift).
    private func syncBodyLength() {
        guard !body.isLengthUnknown, machine.isActive, body.length != OutgoingBody.unknownLength else { return }
        machine.bodyLengthKnown(body.length)
        let length = body.length
        machine.updateRun { $0.summary?.requestBodyBytes = length }
    }

    /// The allowed bytes are out: no more write interest; the timestamp once the whole request is.
    func requestWritten() {
        socket.setWriteInterest(false)
        if machine.written == headBytes.count + body.length && summary?.timings.requestEnd == nil {
            machine.updateRun { $0.summary?.timings.requestEnd = Date() }
        }
    }

    /// Moves pending ciphertext to the socket; returns true when everything was written.
    @discardableResult
    func flushCiphertext() -> Bool {
        switch pump.flushCiphertext() {
        case .success(let allWritten):
            return allWritten
        case .failure(let error):
            if machine.isActive {
                writeFailed(error)
            } else {
                perform(machine.connectionFailed(TransportError(.connectionLost, "write failed: \(error)", underlying: error)))
            }
            return false
        }
    }
}

/// A weak reference to a connection, for a body source's ready handler.
final class WeakConnection {
    weak var connection: HTTP1Connection?
    init(_ connection: HTTP1Connection) { self.connection = connection }
}
