// No SIGPIPE from the library (issue 25, item 6): a write to a socket whose peer reset it, or to
// a FIFO whose reader left (a download destination such as /dev/stdout), fails with EPIPE, and
// no SIGPIPE is raised in the host process. `Socket.write` and `Socket.writev` are the only
// socket writes in EventLoop and Client's transport (TLS is sans-I/O and writes through them);
// both pass MSG_NOSIGNAL. `File.write` blocks SIGPIPE around writes to a FIFO or socket and takes
// the one it raised.
//
// How it is proven without killing the test process: SIGPIPE is blocked on the loop thread for
// the writes, so a raised one stays pending there (Linux keeps a blocked signal pending even when
// its disposition is SIG_IGN); `sigpending` then says whether any write raised it. A control
// write with plain `send(…, 0)` to a closed socket pair must leave one pending, so the check
// cannot pass vacuously. The pending signal is consumed with `sigtimedwait` before the mask is
// restored.
@testable import EventLoop
import Glibc
import LariatTestSupport
import Testing

extension EventLoopTests {
    @Suite struct SigpipeTests {
        /// What the writes on the loop thread saw.
        struct Outcome: Sendable {
            var libraryErrors: [Int32] = []
            var raisedByLibrary = false
            var raisedByControl = false
        }

        @Test func writesToAResetPeerFailWithoutRaisingSIGPIPE() async throws {
            let server = try ScriptedServer(script: [.expect("x"), .reset])
            defer { server.stop() }
            let loop = EventLoopGroup.shared.next()
            let (socket, recorder) = try await connectRecording(host: "127.0.0.1", port: server.port, on: loop)
            _ = await writev([Array("x".utf8)], to: socket)
            #expect(await eventually(on: loop) { recorder.value.readError != nil || !recorder.value.hangUps.isEmpty })
            let outcome = await onLoop(loop) { () -> Outcome in
                var outcome = Outcome()
                var block = sigset_t(), previous = sigset_t()
                sigemptyset(&block)
                sigaddset(&block, SIGPIPE)
                pthread_sigmask(SIG_BLOCK, &block, &previous)
                defer {
                    var zero = timespec(tv_sec: 0, tv_nsec: 0)
                    while sigtimedwait(&block, nil, &zero) == SIGPIPE {}
                    pthread_sigmask(SIG_SETMASK, &previous, nil)
                }
                let bytes: [UInt8] = Array(repeating: 0x61, count: 64)
                bytes.withUnsafeBytes { raw in
                    for round in 0..<6 {
                        do throws(SocketError) {
                            if round.isMultiple(of: 2) {
                                _ = try socket.value.write(raw)
                            } else {
                                _ = try [raw].withUnsafeBufferPointer { pieces throws(SocketError) in try socket.value.writev(pieces) }
                            }
                        } catch {
                            outcome.libraryErrors.append(error.errno)
                        }
                    }
                }
                outcome.raisedByLibrary = Self.isPending()
                // The control: a stream socket whose peer is closed, written without MSG_NOSIGNAL.
                var pair: [Int32] = [-1, -1]
                if socketpair(AF_UNIX, Int32(SOCK_STREAM.rawValue), 0, &pair) == 0 {
                    Glibc.close(pair[1])
                    _ = bytes.withUnsafeBytes { send(pair[0], $0.baseAddress, $0.count, 0) }
                    Glibc.close(pair[0])
                }
                outcome.raisedByControl = Self.isPending()
                return outcome
            }
            #expect(outcome.libraryErrors.contains { $0 == EPIPE }, "\(outcome.libraryErrors)")
            #expect(!outcome.raisedByLibrary, "a library write raised SIGPIPE")
            #expect(outcome.raisedByControl, "the control write raised no SIGPIPE: the check proves nothing")
            await close(socket)
        }

        @Test func fileWriteToAFIFOWhoseReaderLeftFailsWithoutRaisingSIGPIPE() throws {
            let path = "/tmp/lariat-sigpipe-\(getpid())-\(UInt32.random(in: 0...UInt32.max))"
            #expect(mkfifo(path, 0o600) == 0)
            defer { unlink(path) }
            let reader = open(path, O_RDONLY | O_NONBLOCK)
            #expect(reader >= 0)
            let file = try File(path: path, mode: .createOrTruncate)
            defer { file.close() }
            Glibc.close(reader)
            var block = sigset_t(), previous = sigset_t()
            sigemptyset(&block)
            sigaddset(&block, SIGPIPE)
            pthread_sigmask(SIG_BLOCK, &block, &previous)
            defer {
                var zero = timespec(tv_sec: 0, tv_nsec: 0)
                while sigtimedwait(&block, nil, &zero) == SIGPIPE {}
                pthread_sigmask(SIG_SETMASK, &previous, nil)
            }
            var failure: Int32?
            let bytes = UnsafeMutableRawBufferPointer.allocate(byteCount: 16, alignment: 1)
            defer { bytes.deallocate() }
            bytes.initializeMemory(as: UInt8.self, repeating: 0x61)
            do throws(SocketError) {
                try file.write(UnsafeRawBufferPointer(bytes))
            } catch {
                failure = error.errno
            }
            #expect(failure == EPIPE)
            #expect(!Self.isPending(), "File.write raised SIGPIPE")
        }

        /// Whether SIGPIPE is pending for this thread or the process.
        static func isPending() -> Bool {
            var pending = sigset_t()
            sigpending(&pending)
            return sigismember(&pending, SIGPIPE) == 1
        }
    }
}
