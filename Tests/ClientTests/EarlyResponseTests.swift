// The connection's writing side as states: `Expect: 100-continue` holds the body until the server
// agrees, a final answer instead means the body is never sent, and a server that answers early
// and stops reading still has its answer delivered (ScriptedServer, raw bytes on loopback).
#if FullFoundation
import Foundation
#else
import FoundationEssentials
#endif
import Testing
import LariatTestSupport
@testable import Client

extension ClientIntegrationTests {
    @Suite("Early responses and Expect: 100-continue")
    struct EarlyResponseTests {
        let session = Session()
        static let body = Data(repeating: UInt8(ascii: "b"), count: 64)

        /// The body waits for `100 Continue`, then goes out and the final response arrives.
        @Test func continueReleasesTheBody() async throws {
            let server = try ScriptedServer(script: [
                .receive(atLeast: 30), .sleep(.milliseconds(200)),
                .send("HTTP/1.1 100 Continue\r\n\r\n"), .expectRequest, cannedResponse("done"),
            ])
            defer { server.stop() }
            let response = await session.upload(Self.body, to: "http://127.0.0.1:\(server.port)/up",
                                                headers: ["Expect": "100-continue"]).serializingString().response
            #expect(response.value == "done", "\(response.result)")
            let request = String(decoding: server.requests.first ?? [], as: UTF8.self)
            #expect(request.hasSuffix("\r\n\r\n" + String(repeating: "b", count: 64)), "\(request)")
            #expect(server.failures.isEmpty, "\(server.failures)")
        }

        /// A final answer to `Expect: 100-continue`: the response is delivered, the body is never
        /// sent (the old transport wrote head and body in one writev, whatever the head said).
        @Test func finalAnswerKeepsTheBody() async throws {
            let server = try ScriptedServer(script: [
                .receive(atLeast: 30), .sleep(.milliseconds(200)),
                .send("HTTP/1.1 417 Expectation Failed\r\nContent-Length: 0\r\n\r\n"), .close,
            ])
            defer { server.stop() }
            let response = await session.upload(Self.body, to: "http://127.0.0.1:\(server.port)/up",
                                                headers: ["Expect": "100-continue"]).serializingData(emptyResponseCodes: [417]).response
            #expect(response.response?.statusCode == 417, "\(response.result)")
            let received = String(decoding: server.receivedBytes(onConnection: 0), as: UTF8.self)
            #expect(received.hasSuffix("\r\n\r\n"), "the body went out: \(received.suffix(80))")
            #expect(!received.contains("bbbb"))
        }

        /// The server answers 413 after the head and closes without reading the 4 MiB body: the
        /// upload's writes fail, yet the 413 that arrived is the outcome (not a lost connection).
        @Test func earlyAnswerThenCloseIsDelivered() async throws {
            let server = try ScriptedServer(script: [
                .receive(atLeast: 30),
                .send("HTTP/1.1 413 Content Too Large\r\nConnection: close\r\nContent-Length: 0\r\n\r\n"),
                .sleep(.milliseconds(100)), .shutdownWrite, .sleep(.milliseconds(300)), .reset,
            ])
            defer { server.stop() }
            let large = Data(repeating: 0x61, count: 4 << 20)
            let response = await session.upload(large, to: "http://127.0.0.1:\(server.port)/up")
                .serializingData(emptyResponseCodes: [413]).response
            #expect(response.response?.statusCode == 413, "\(response.result)")
        }
    }
}
