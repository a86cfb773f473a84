// Alamofire members added for API coverage that have behaviour: uploadables, downloadables,
// `onHTTPResponse`, serializer shorthands, `RequestDelegate`, the session's queues.
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

@Suite("Lifecycle API")
struct LifecycleAPITests {
    @Test("an Uploadable is its own UploadableConvertible; a multipart upload encodes below its threshold")
    func uploadables() throws {
        let session = Session()
        let data = session.upload(Data("abc".utf8), to: "http://127.0.0.1:1/", shouldAutomaticallyResume: false)
        guard case .data(let bytes) = try data.upload.createUploadable() else { Issue.record("not data"); return }
        #expect(bytes == Data("abc".utf8))
        let form = MultipartFormData(boundary: "b")
        form.append(Data("v".utf8), withName: "k")
        let multipart = session.upload(multipartFormData: form, to: "http://127.0.0.1:1/", shouldAutomaticallyResume: false)
        guard case .data(let encoded) = try multipart.upload.createUploadable() else { Issue.record("not in memory"); return }
        #expect(encoded == (try form.encode()))
    }

    @Test("a download's downloadable is the request it was made from")
    func downloadable() throws {
        let request = retained(Session()).download("http://127.0.0.1:1/file", shouldAutomaticallyResume: false)
        guard case .request(let convertible) = request.downloadable else { Issue.record("not a request"); return }
        #expect(try convertible.asURLRequest().url?.absoluteString == "http://127.0.0.1:1/file")
    }

    @Test("serializer shorthands and emptyResponseAllowed(forRequest:response:)")
    func shorthands() throws {
        let serializer: DataResponseSerializer = .data
        let head = try URLRequest(url: "http://a/", method: .head)
        #expect(serializer.emptyResponseAllowed(forRequest: head, response: nil))
        #expect(!serializer.emptyResponseAllowed(forRequest: try URLRequest(url: "http://a/", method: .get), response: nil))
        #expect(try StringResponseSerializer.string.serialize(request: nil, response: nil, data: Data("x".utf8), error: nil) == "x")
        #expect(AFInfo.version == "5.12.0")
    }

    @Test("the session's serialization queue is its root queue unless one is given; it is its requests' RequestDelegate")
    func sessionQueuesAndDelegate() {
        let root = DispatchQueue(label: "root")
        let session = Session(rootQueue: root)
        #expect(session.serializationQueue === root)
        let request = session.request("http://127.0.0.1:1/", shouldAutomaticallyResume: false)
        #expect(request.serializationQueue === root)
        #expect(request.delegate === session)
        #expect(session.startImmediately && session.sessionConfiguration === session.configuration)
        let given = DispatchQueue(label: "serialization")
        #expect(Session(serializationQueue: given).serializationQueue === given)
    }

    @Test("Session(session:delegate:rootQueue:) takes the URLSession stand-in's configuration")
    func sessionFromURLSession() {
        let configuration = URLSessionConfiguration.default
        configuration.httpAdditionalHeaders = ["X-From": "stand-in"]
        let root = DispatchQueue(label: "root")
        let delegate = SessionDelegate()
        let session = Session(session: URLSession(configuration: configuration), delegate: delegate, rootQueue: root)
        #expect(session.configuration.settings.httpAdditionalHeaders?["X-From"] == "stand-in")
        #expect(session.session.configuration.settings.httpAdditionalHeaders?["X-From"] == "stand-in")
        #expect(session.delegate === delegate && session.rootQueue === root)
        #expect(session.requestSetup == .lazy)
    }

    @Test("RequestDelegate.retryResult asks the retriers; without one it answers doNotRetry")
    func retryResult() async {
        let plain = Session()
        let request = plain.request("http://127.0.0.1:1/", shouldAutomaticallyResume: false)
        let none = await withCheckedContinuation { continuation in
            plain.retryResult(for: request, dueTo: .explicitlyCancelled) { continuation.resume(returning: $0) }
        }
        #expect(none.retryRequired == false)
        let retrying = Session(interceptor: Interceptor(retriers: [Retrier { _, _, _, completion in completion(.retry) }]))
        let other = retrying.request("http://127.0.0.1:1/", shouldAutomaticallyResume: false)
        let answer = await withCheckedContinuation { continuation in
            retrying.retryResult(for: other, dueTo: .explicitlyCancelled) { continuation.resume(returning: $0) }
        }
        #expect(answer.retryRequired)
    }
}

extension ClientIntegrationTests {
    @Suite("onHTTPResponse")
    struct OnHTTPResponseTests {
        @Test("a handler sees the head; .allow lets the response through")
        func allow() async throws {
            let server = try ScriptedServer(script: [.expectRequest, cannedResponse("fine")])
            defer { server.stop() }
            let statuses = Mutex<[Int]>([])
            let response = await retained(Session()).request("http://127.0.0.1:\(server.port)/")
                .onHTTPResponse { head in
                    statuses.withLock { $0.append(head.statusCode) }
                    return .allow
                }
                .serializingString().response
            #expect(response.value == "fine")
            #expect(statuses.withLock { $0 } == [200])
        }

        @Test("as in Alamofire, the last handler set is the one called")
        func lastHandlerWins() async throws {
            let server = try ScriptedServer(script: [.expectRequest, cannedResponse("fine")])
            defer { server.stop() }
            let calls = Mutex<[String]>([])
            let response = await retained(Session()).request("http://127.0.0.1:\(server.port)/")
                .onHTTPResponse(on: .global()) { _ in calls.withLock { $0.append("first") } }
                .onHTTPResponse(on: .global()) { _ in calls.withLock { $0.append("second") } }
                .serializingString().response
            #expect(response.value == "fine")
            #expect(calls.withLock { $0 } == ["second"])
        }

        @Test("answering .cancel cancels the request")
        func cancel() async throws {
            let server = try ScriptedServer(script: [
                .expectRequest, .send("HTTP/1.1 200 OK\r\nContent-Length: 10\r\n\r\nhalf"), .sleep(.seconds(2)), .send("rest!!"),
            ])
            defer { server.stop() }
            let response = await retained(Session()).request("http://127.0.0.1:\(server.port)/")
                .onHTTPResponse(on: .global()) { _, completion in completion(.cancel) }
                .serializingData().response
            #expect(response.error?.isExplicitlyCancelledError == true)
        }
    }
}
