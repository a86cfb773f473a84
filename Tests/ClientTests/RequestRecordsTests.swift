// What a request remembers of the URLRequests it made, as Alamofire: `requests` holds the
// request as made, then the adapted one (`firstRequest` is the unadapted one), and a response's
// `request` stays the request the attempt made across redirects (the hop's URL is the
// response's). Against ScriptedServer.
#if FullFoundation
import Foundation
#else
import FoundationEssentials
#endif
import Testing
import LariatTestSupport
@testable import Client

extension ClientIntegrationTests {
    @Suite("Request records")
    struct RequestRecordsTests {
        private static let ok = Array("HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nok".utf8)

        @Test("requests holds the initial URLRequest, then the adapted one; firstRequest is the unadapted one")
        func initialThenAdapted() async throws {
            let server = try ScriptedServer(script: [.expectRequest, .send(Self.ok)])
            defer { server.stop() }
            let adapter = Adapter { request, _, completion in
                var adapted = request
                adapted.headers.add(name: "X-Adapted", value: "1")
                completion(.success(adapted))
            }
            let request = retained(Session()).request(loopbackURL(server, "/a"), interceptor: Interceptor(adapters: [adapter]))
            let response = await request.serializingData().response
            #expect(response.value == Data("ok".utf8), "\(response.result)")
            #expect(request.requests.count == 2)
            #expect(request.firstRequest?.headers["X-Adapted"] == nil)
            #expect(request.lastRequest?.headers["X-Adapted"] == "1")
            #expect(request.request == request.lastRequest)
            #expect(response.request?.headers["X-Adapted"] == "1")
        }

        @Test("a response's request is the one the request made, across a redirect; its response is the last hop's")
        func requestAcrossRedirect() async throws {
            let server = try ScriptedServer(script: [
                .expectRequest, .send(Array("HTTP/1.1 302 Found\r\nLocation: /b\r\nContent-Length: 0\r\n\r\n".utf8)),
                .expectRequest, .send(Self.ok),
            ])
            defer { server.stop() }
            let request = retained(Session()).request(loopbackURL(server, "/a"))
            let response = await request.serializingData().response
            #expect(response.value == Data("ok".utf8), "\(response.result)")
            #expect(response.request?.url?.path == "/a")
            #expect(request.request?.url?.path == "/a")
            #expect(response.response?.url?.path == "/b")
            #expect(request.requests.count == 1 && request.firstRequest?.url?.path == "/a")
        }
    }
}
