// Several response handlers on one request complete in the order they were added, as
// Alamofire's serializers do: a cheap `.response {}` added last waits for an earlier, slow
// `.responseDecodable`. Against ScriptedServer; the handlers share one serial completion queue.
#if FullFoundation
import Foundation
#else
import FoundationEssentials
#endif
#if canImport(Glibc)
import Glibc
#endif
import Dispatch
import Synchronization
import Testing
import LariatTestSupport
@testable import Client

/// A JSON decoder that takes its time: a serializer slow enough that a later cheap handler
/// would overtake it if handlers did not complete in order.
private struct SlowDecoder: DataDecoder {
    func decode<D: Decodable>(_ type: D.Type, from data: Data) throws -> D {
        usleep(150_000)
        return try JSONDecoder().decode(type, from: data)
    }
}

private struct Greeting: Decodable, Sendable { var hello: String }

extension ClientIntegrationTests {
    @Suite("Response handler order")
    struct ResponseHandlerOrderTests {
        private static let json = "{\"hello\":\"world\"}"
        private static let answer = Array("HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: \(json.utf8.count)\r\n\r\n\(json)".utf8)

        @Test("a cheap .response added last completes after an earlier slow .responseDecodable (data and download)",
              arguments: ["data", "download"])
        func handlersCompleteInOrder(_ kind: String) async throws {
            let server = try ScriptedServer(script: [.expectRequest, .send(Self.answer)])
            defer { server.stop() }
            let queue = DispatchQueue(label: "handler-order")
            let order = Mutex<[String]>([])
            let done = ResponseWaiter<Bool>()
            let session = Session()
            let url = loopbackURL(server, "/json")
            if kind == "data" {
                session.request(url)
                    .responseDecodable(of: Greeting.self, queue: queue, decoder: SlowDecoder()) { response in
                        order.withLock { $0.append("decodable \(response.value?.hello ?? "failed")") }
                    }
                    .response(queue: queue) { _ in
                        order.withLock { $0.append("response") }
                        done.deliver(true)
                    }
            } else {
                session.download(url)
                    .responseDecodable(of: Greeting.self, queue: queue, decoder: SlowDecoder()) { response in
                        order.withLock { $0.append("decodable \(response.value?.hello ?? "failed")") }
                    }
                    .response(queue: queue) { response in
                        response.fileURL.map { try? FileManager.default.removeItem(at: $0) }  // the default destination is ours to clean
                        order.withLock { $0.append("response") }
                        done.deliver(true)
                    }
            }
            _ = await done.response(cancelling: nil)
            #expect(order.withLock { $0 } == ["decodable world", "response"])
        }
    }
}
