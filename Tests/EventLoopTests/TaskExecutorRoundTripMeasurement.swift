// Opt-in measurement: context switches per keep-alive GET when the awaiting task prefers the loop
// and the response completes on the loop, against the same exchange awaited from the global
// executor. It is the floor Issue 9's transport can reach with `withTaskExecutorPreference`.
//
//   NGINX_CPU=0 scripts/nginx.sh start .build-bench/ctx-nginx && . .build-bench/ctx-nginx/env
//   LARIAT_EXECUTOR_MEASURE=$LARIAT_NGINX_HTTP taskset -c 1 swift test --skip-build \
//       --filter TaskExecutorRoundTripMeasurement
//
// Prints, and checks nothing beyond the exchange working: switch counts depend on the machine.
@testable import EventLoop
import Glibc
import Testing

extension EventLoopTests {
    @Suite(.enabled(if: getenv("LARIAT_EXECUTOR_MEASURE") != nil))
    struct TaskExecutorRoundTripMeasurement {
        /// Reads whole responses of a known size and resumes one waiter per response, on the loop.
        final class Exchanger: SocketHandler {
            var waiter: UnsafeContinuation<Void, Never>?
            var responseSize = 0
            var pending = 0
            private let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: 65536, alignment: 1)
            deinit { buffer.deallocate() }

            func socketReadable(_ socket: Socket) {
                while case .bytes(let count)? = try? socket.read(into: buffer) { pending += count }
                guard responseSize > 0, pending >= responseSize, let waiter else { return }
                pending -= responseSize
                self.waiter = nil
                waiter.resume()
            }

            func socketWritable(_ socket: Socket) {}
            func socketHungUp(_ socket: Socket, error: SocketError?) {}
        }

        /// Voluntary plus involuntary context switches of every thread of this process so far.
        static func switches() -> Int {
            var usage = rusage()
            getrusage(RUSAGE_SELF.rawValue, &usage)
            return usage.ru_nvcsw + usage.ru_nivcsw
        }

        @Test func contextSwitchesPerKeepAliveGET() async throws {
            let base = String(cString: getenv("LARIAT_EXECUTOR_MEASURE"))  // http://127.0.0.1:PORT
            let port = Int(base.split(separator: ":").last!)!
            let group = EventLoopGroup(numberOfThreads: 1)
            defer { group.shutdown() }
            let loop = group.loops[0]
            let socket = try await connect(host: "127.0.0.1", port: port, on: loop).get()
            let exchanger = await onLoop(loop) { () -> LoopBound<Exchanger> in
                let exchanger = Exchanger()
                socket.value.handler = exchanger
                socket.value.setReadInterest(true)
                return LoopBound(exchanger, loop: loop)
            }
            let request = Array("GET /1k.bin HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n".utf8)
            /// Sends one request and returns once its whole response was read. Loop-only.
            @Sendable func send(_ waiter: UnsafeContinuation<Void, Never>) {
                exchanger.value.waiter = waiter
                _ = request.withUnsafeBytes { try? socket.value.write($0) }
            }
            // Learn the response size from one exchange, then time the two ways of awaiting.
            _ = await writev([request], to: socket)
            usleep(100_000)
            await onLoop(loop) {
                exchanger.value.responseSize = exchanger.value.pending
                exchanger.value.pending = 0
            }
            let count = 20_000
            let fromGlobal = Self.switches()
            for _ in 0..<count {
                await withUnsafeContinuation { waiter in loop.execute { send(waiter) } }
            }
            let global = Double(Self.switches() - fromGlobal) / Double(count)
            let onLoopPerGET = await withTaskExecutorPreference(loop) { () -> Double in
                let start = Self.switches()
                for _ in 0..<count {
                    await withUnsafeContinuation { waiter in send(waiter) }  // already on the loop
                }
                return Double(Self.switches() - start) / Double(count)
            }
            print("context switches per keep-alive GET: awaited from the global executor \(global), "
                + "with withTaskExecutorPreference(loop) \(onLoopPerGET)")
            await onLoop(loop) { socket.value.close() }
        }
    }
}
