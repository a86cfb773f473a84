// Behaviour that must match Alamofire's where users notice it (issue 11, "Fidelity of what
// exists"): request validation before sending, `Empty`'s conformances, the open classes users
// subclass, and the default completion queue. HTTPHeaders' rules are in HTTPHeadersTests.
#if FullFoundation
import Foundation
#else
import FoundationEssentials
#endif
import Dispatch
import Synchronization
import Testing
import LariatTestSupport
@testable import Client

@Suite("Alamofire fidelity")
struct FidelityTests {
    @Test("URLRequest.validate(): a body on GET or HEAD fails with bodyDataInGETRequest", arguments: [
        (HTTPMethod.get, true), (.head, true), (.post, false), (.put, false), (.delete, false),
    ])
    func validateBody(method: HTTPMethod, fails: Bool) throws {
        var request = URLRequest(url: URL(string: "http://example.com/")!)
        request.method = method
        try request.validate()  // no body: always fine
        request.httpBody = Data("x".utf8)
        if fails {
            #expect(throws: AFError.self) { try request.validate() }
            #expect(bodyInGET(from: Result { try request.validate() }) == Data("x".utf8))
        } else {
            try request.validate()
        }
    }

    @Test("Empty is Hashable, so Equatable: every Empty equals every other")
    func emptyIsHashable() {
        #expect(Empty() == Empty.value)
        #expect(Set([Empty(), Empty.value]).count == 1)
        #expect(Empty.emptyValue() == Empty())
    }

    @Test("a ServerTrustManager subclass's serverTrustEvaluator(forHost:) is what sessions consult")
    func serverTrustManagerOverride() throws {
        let manager: ServerTrustManager = SuffixTrustManager(evaluators: [:])
        #expect(try manager.serverTrustEvaluator(forHost: "api.example.com") is DisabledTrustEvaluator)
        #expect(throws: AFError.self) { try manager.serverTrustEvaluator(forHost: "example.org") }
        // The TLS layer asks through the same method, so the override decides the handshake.
        #expect(manager.tlsEvaluator(forHost: "api.example.com") != nil)
    }
}

/// Alamofire users match suffixes this way: by subclassing and overriding.
private final class SuffixTrustManager: ServerTrustManager, @unchecked Sendable {
    override func serverTrustEvaluator(forHost host: String) throws -> (any ServerTrustEvaluating)? {
        host.hasSuffix(".example.com") ? DisabledTrustEvaluator() : try super.serverTrustEvaluator(forHost: host)
    }
}

/// The data of a `.bodyDataInGETRequest` failure, or `nil` for any other outcome.
private func bodyInGET<Value>(from result: Result<Value, any Error>) -> Data? {
    guard case let .failure(error) = result,
          case let .urlRequestValidationFailed(reason: .bodyDataInGETRequest(data))? = error as? AFError else { return nil }
    return data
}

/// Marks the main queue, so a handler can tell it runs there.
private let mainQueueKey: DispatchSpecificKey<Bool> = {
    let key = DispatchSpecificKey<Bool>()
    DispatchQueue.main.setSpecific(key: key, value: true)
    return key
}()

extension ClientIntegrationTests {
    @Suite("Alamofire fidelity on loopback")
    struct FidelityIntegrationTests {
        @Test("a GET or HEAD with a body fails before anything is sent", arguments: [HTTPMethod.get, .head])
        func bodyInGETNotSent(method: HTTPMethod) async throws {
            let server = try ScriptedServer(script: [.expectRequest, .send("HTTP/1.1 200 OK\r\nContent-Length: 0\r\n\r\n"), .close])
            defer { server.stop() }
            var request = URLRequest(url: URL(string: loopbackURL(server))!)
            request.method = method
            request.httpBody = Data("payload".utf8)
            let response = await retained(Session()).request(request).serializingData().response
            #expect(bodyInGET(from: response.result.mapError { $0 as any Error }) == Data("payload".utf8), "\(response.result)")
            #expect(response.response == nil)
            try await Task.sleep(for: .milliseconds(50))
            #expect(server.connectionCount == 0)
        }

        @Test("a response's repeated fields all reach HTTPURLResponse, in order")
        func repeatedResponseFields() async throws {
            let head = "HTTP/1.1 200 OK\r\nSet-Cookie: a=1\r\nset-cookie: b=2\r\nContent-Length: 0\r\n\r\n"
            let server = try ScriptedServer(script: [.expectRequest, .send(head), .close])
            defer { server.stop() }
            let response = await retained(Session()).request(loopbackURL(server)).serializingData(emptyResponseCodes: [200]).response
            let http = try #require(response.response, "\(response.result)")
            #expect(http.headers.values(for: "Set-Cookie") == ["a=1", "b=2"])
            #expect(http.value(forHTTPHeaderField: "set-cookie") == "a=1, b=2")
        }

        @Test("completion handlers run on the main queue unless given another")
        func completionOnMainByDefault() async throws {
            let server = try ScriptedServer(script: [.expectRequest, .send("HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nok"), .close],
                                            forEveryConnection: true)
            defer { server.stop() }
            let key = mainQueueKey
            let session = Session()
            let onMain = await withCheckedContinuation { continuation in
                session.request(loopbackURL(server)).responseData { _ in
                    continuation.resume(returning: DispatchQueue.getSpecific(key: key) == true)
                }
            }
            #expect(onMain)
            let queue = DispatchQueue(label: "fidelity.completion")
            let onGiven = await withCheckedContinuation { continuation in
                session.request(loopbackURL(server)).response(queue: queue) { _ in
                    continuation.resume(returning: DispatchQueue.getSpecific(key: key) == nil)
                }
            }
            #expect(onGiven)
        }

        @Test("the async API does not need the main queue: it completes while main is blocked")
        func asyncWithoutMain() async throws {
            let server = try ScriptedServer(script: [.expectRequest, .send("HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nok"), .close])
            defer { server.stop() }
            let mainBlocked = Atomic<Bool>(false)
            let release = DispatchSemaphore(value: 0)
            DispatchQueue.main.async {
                mainBlocked.store(true, ordering: .releasing)
                _ = release.wait(timeout: .now() + .seconds(10))
            }
            while !mainBlocked.load(ordering: .acquiring) { try await Task.sleep(for: .milliseconds(1)) }
            let response = await retained(Session()).request(loopbackURL(server)).serializingData().response
            release.signal()
            #expect(response.value == Data("ok".utf8), "\(response.result)")
        }
    }
}
