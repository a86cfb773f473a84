// A response the caller keeps must not keep its request alive. The request holds what the caller
// gave it (its interceptor, validators and handlers), so a caller that stores the response it got
// (a view model keeping its last response, an API client that is its own interceptor) would close
// a cycle, caller ─▶ response ─▶ request ─▶ interceptor ─▶ caller, that Alamofire does not have:
// its responses name no request. The response's metrics are the one thing it shares with the
// request, so each row keeps a response whose metrics were read or not, and checks through weak
// probes that the request and the caller are both freed.
#if FullFoundation
import Foundation
#else
import FoundationEssentials
#endif
import Synchronization
import Testing
import LariatTestSupport
@testable import Client

extension ClientIntegrationTests {
    @Suite("A kept response does not keep its request")
    struct ResponseRetentionTests {
        /// A caller that is its request's interceptor and keeps the response it got.
        final class Keeper: RequestInterceptor {
            let last = Mutex<AFDataResponse<Data>?>(nil)
        }

        @Test("a caller keeping its response is freed with the request", arguments: [false, true])
        func keptResponse(metricsRead: Bool) async throws {
            let server = try ScriptedServer(script: [.expectRequest, cannedResponse("kept")])
            defer { server.stop() }
            let session = retained(Session())
            weak var requestProbe: DataRequest?
            weak var keeperProbe: Keeper?
            do {
                let keeper = Keeper()
                keeperProbe = keeper
                let request = session.request("http://127.0.0.1:\(server.port)/kept", interceptor: keeper)
                requestProbe = request
                let response = await request.serializingData().response
                #expect(response.value == Data("kept".utf8))
                if metricsRead {
                    #expect(response.metrics != nil)
                    #expect(response.metrics === request.metrics, "the response and the request read one metrics object")
                }
                keeper.last.withLock { $0 = response }
            }
            // The last references (the pool's exchange, a completion queue's closure) go
            // moments after the response is delivered.
            for _ in 0..<100 where requestProbe != nil || keeperProbe != nil { try await Task.sleep(for: .milliseconds(10)) }
            #expect(requestProbe == nil, "the kept response keeps its finished request alive")
            #expect(keeperProbe == nil, "caller -> response -> request -> interceptor -> caller: a cycle")
        }
    }
}
