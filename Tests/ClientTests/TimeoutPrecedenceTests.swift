// Which idle timeout applies: the request's, when it set one, else the session configuration's
// `timeoutIntervalForRequest` (URLSession's rule; Alamofire users set timeouts on the configuration).
#if FullFoundation
import Foundation
#else
import FoundationEssentials
#endif
import Testing
import LariatTestSupport
@testable import Client

extension ClientIntegrationTests {
    @Suite("Timeout precedence")
    struct TimeoutPrecedenceTests {
        /// One row: the configuration's timeout, the request's (nil: left at its default), and
        /// the window the failure must fall in.
        struct Row: Sendable, CustomStringConvertible {
            var configuration: TimeInterval
            var request: TimeInterval?
            var atLeast: Int64
            var below: Int64
            var description: String { "configuration \(configuration) s, request \(request.map { "\($0) s" } ?? "default")" }
        }

        @Test("a stalled server times out after the timeout that applies", arguments: [
            // the request keeps its default 60 s: the configuration's 0.4 s applies
            Row(configuration: 0.4, request: nil, atLeast: 300, below: 2_500),
            // the request set 0.4 s: it wins over the configuration's 60 s
            Row(configuration: 60, request: 0.4, atLeast: 300, below: 2_500),
            // the request set 1.5 s: it wins over the configuration's shorter 0.3 s
            Row(configuration: 0.3, request: 1.5, atLeast: 1_200, below: 4_000),
        ])
        func precedence(row: Row) async throws {
            let server = try ScriptedServer(script: [.expectRequest, .sleep(.seconds(6)), .close])
            defer { server.stop() }
            let configuration = URLSessionConfiguration.af.default
            configuration.timeoutIntervalForRequest = row.configuration
            let session = Session(configuration: configuration)
            let start = ContinuousClock.now
            let response = await session.request("http://127.0.0.1:\(server.port)/", requestModifier: { request in
                if let timeout = row.request { request.timeoutInterval = timeout }
            }).serializingData().response
            let elapsed = milliseconds(since: start)
            #expect(sessionTaskURLError(response.result)?.code == .timedOut, "\(response.result)")
            #expect(elapsed >= row.atLeast && elapsed < row.below, "timed out after \(elapsed) ms")
        }
    }
}
