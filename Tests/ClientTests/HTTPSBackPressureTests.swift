// Back-pressure over TLS (LoopbackTLSServer): pausing must also stop moving plaintext out of the
// TLS engine, and resuming must drain what the engine already decrypted before waiting for the
// socket.
#if FullFoundation
import Foundation
import Synchronization
import Testing
import TLS
import LariatTestSupport
@testable import Client
@testable import Transport

extension ClientIntegrationTests {
    @Suite("HTTPS back-pressure")
    struct HTTPSBackPressureTests {
        /// 8 MiB over TLS to a consumer that stalls 1 s on its first chunk: bounded buffer, every
        /// byte once, in order, and no idle timeout (0.5 s) while paused.
        @Test(arguments: [TLSVersion.v1_2, .v1_3])
        func stalledConsumerOverTLS(version: TLSVersion) async throws {
            let size = 8 << 20
            let body = (0..<size).map { UInt8(0x30 + $0 % 43) }
            let lab = try HTTPSLab.shared.get()
            let server = try LoopbackTLSServer(
                certificateFile: lab.path("good-chain.pem"), keyFile: lab.path("good.key"),
                response: "HTTP/1.1 200 OK\r\nContent-Length: \(size)\r\n\r\n" + String(decoding: body, as: UTF8.self))
            defer { server.stop() }
            var tls = TLSConfiguration()
            tls.trustRoots = .file(lab.path("ca.pem"))
            tls.maximumVersion = version
            let configuration = URLSessionConfiguration.af.default
            configuration.timeoutIntervalForRequest = 0.5
            let session = Session(configuration: configuration, tlsConfiguration: tls,
                                  resolver: try HostResolver(overrides: [HTTPSLab.hostName: ["127.0.0.1"]]))
            let request = session.streamRequest("https://\(HTTPSLab.hostName):\(server.port)/")
            let checker = PatternChecker(reference: body)
            let peak = Atomic<Int>(0)
            let stalled = Atomic<Bool>(false)
            let done = ResponseWaiter<DataStreamRequest.Completion>()
            request.responseStream(on: DispatchQueue(label: "tls-consumer")) { stream in
                switch stream.event {
                case .stream(.success(let data)):
                    if !stalled.exchange(true, ordering: .relaxed) {
                        for _ in 0..<20 {
                            blockingSleep(milliseconds: 50)
                            let buffered = request.stream.withLock { $0.flow.buffered }
                            peak.store(max(peak.load(ordering: .relaxed), buffered), ordering: .relaxed)
                        }
                    }
                    checker.check(data)
                case .complete(let completion):
                    done.deliver(completion)
                }
            }
            let completion = await done.response(cancelling: nil)
            #expect(completion.error == nil, "\(String(describing: completion.error)) after \(checker.count) bytes")
            #expect(checker.count == size && checker.mismatch == nil)
            let measured = peak.load(ordering: .relaxed)
            #expect(measured > 0 && measured <= DataStreamRequest.maxBufferedBytes + HTTP1Connection.maxReceiveBuffer, "peak \(measured)")
        }
    }
}
#endif
