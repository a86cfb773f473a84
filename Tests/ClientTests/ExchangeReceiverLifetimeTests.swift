// An exchange holds its request (the request is its receiver) strongly: a weak reference cost the
// request a side-table allocation per round trip. The cycle that closes (request ─▶ state machine
// ─▶ exchange ─▶ request) must open at a written-down point: the machine lets go of the exchange
// at its end, or when a held, never-sent exchange is cancelled (`ExchangeReceiver.swift`). A
// cycle left behind would keep every finished request alive: each row ends a request one way and
// then checks, through a weak probe, that nothing but the test held it.
#if FullFoundation
import Foundation
#else
import FoundationEssentials
#endif
import Glibc
import Testing
import LariatTestSupport
@testable import Client

extension ClientIntegrationTests {
    @Suite("Exchange receiver lifetime")
    struct ExchangeReceiverLifetimeTests {
        /// How a request ends.
        enum Ending: String, CaseIterable, CustomTestStringConvertible {
            /// Two responses on one kept-alive connection (the second request is probed).
            case keptAlive
            /// A redirect followed: two exchanges.
            case redirectFollowed
            /// A redirect the handler declines: the held response is replayed through the receiver.
            case redirectDeclined
            /// The connection is refused: the failure comes from the pool, before any connection.
            case refused
            /// Cancelled while its exchange waits on the wire.
            case cancelledOnTheWire
            /// Built eagerly, never resumed, then cancelled: its exchange never reached the transport.
            case heldThenCancelled
            var testDescription: String { rawValue }
        }

        private static func redirect(to location: String, body: String = "") -> ScriptedServer.Step {
            .send("HTTP/1.1 302 Found\r\nLocation: \(location)\r\nContent-Length: \(body.utf8.count)\r\n\r\n\(body)")
        }

        private static func script(for ending: Ending) -> [ScriptedServer.Step] {
            switch ending {
            case .keptAlive: [.expectRequest, cannedResponse("one"), .expectRequest, cannedResponse("two")]
            case .redirectFollowed: [.expectRequest, redirect(to: "/b"), .expectRequest, cannedResponse("b")]
            case .redirectDeclined: [.expectRequest, redirect(to: "/b", body: "moved")]
            case .refused, .heldThenCancelled: []
            case .cancelledOnTheWire: [.expectRequest, .waitForClientClose]
            }
        }

        @Test("a finished request is freed: nothing but its caller holds it", arguments: Ending.allCases)
        func finishedRequestIsFreed(ending: Ending) async throws {
            let server = try ScriptedServer(script: Self.script(for: ending))
            let base = "http://127.0.0.1:\(server.port)"
            if ending == .refused { server.stop() }  // nothing listens on its port any more
            defer { server.stop() }
            let session = retained(Session(requestSetup: ending == .heldThenCancelled ? .eager : .lazy))
            weak var probe: DataRequest?
            var result: Result<Data, AFError>?
            do {
                if ending == .keptAlive {
                    let first = await session.request("\(base)/one").serializingData().response
                    #expect(first.value == Data("one".utf8))
                }
                let request = session.request("\(base)/probe", shouldAutomaticallyResume: false)
                probe = request
                switch ending {
                case .redirectDeclined: request.redirect(using: .doNotFollow).resume()
                case .heldThenCancelled: request.cancel()
                case .cancelledOnTheWire:
                    request.resume()
                    let sent = try await offPool {
                        for _ in 0..<250 where server.requests.isEmpty { usleep(20_000) }
                        return !server.requests.isEmpty
                    }
                    #expect(sent)
                    request.cancel()
                default: request.resume()
                }
                result = await request.serializingData().response.result
            }
            switch ending {
            case .keptAlive: #expect(try result?.get() == Data("two".utf8))
            case .redirectFollowed: #expect(try result?.get() == Data("b".utf8))
            case .redirectDeclined: #expect(try result?.get() == Data("moved".utf8))
            case .refused: #expect(result?.failure?.isSessionTaskError == true, "\(String(describing: result))")
            case .cancelledOnTheWire, .heldThenCancelled: #expect(result?.failure?.isExplicitlyCancelledError == true, "\(String(describing: result))")
            }
            // The last references (the pool's exchange, a completion queue's closure) go
            // moments after the response is delivered.
            for _ in 0..<100 where probe != nil { try await Task.sleep(for: .milliseconds(10)) }
            #expect(probe == nil, "the finished request is still alive: a reference cycle through its exchange")
        }
    }
}
