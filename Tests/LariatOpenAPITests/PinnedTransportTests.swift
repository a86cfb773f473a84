// A generated OpenAPI client on a pinned Session (issue 20 §1): the session's
// ServerTrustManager decides inside the TLS handshake, so the pin holds for generated clients as
// for any Lariat request. Against the loopback TLS server of Tests/Support with the TLS lab's
// certificates: the server's own key pinned answers; another key pinned fails before any byte
// of the request is sent, and the ClientError keeps Lariat's AFError.
// Full Foundation only, as the TLS lab it uses.
#if FullFoundation
import Foundation
import Testing
import OpenAPIRuntime
import LariatTestSupport
import LariatOpenAPI
@testable import Client

@Suite("LariatTransport with a pinned Session")
struct PinnedTransportTests {
    /// The JSON the server answers `GET /get` with (the `Echo` schema).
    static let echo = #"{"args":{"name":"pinned"},"url":"https://127.0.0.1/get?name=pinned"}"#

    /// A server with the lab's `server` certificate, answering every request with `echo`.
    private func server(_ lab: HTTPSLab) throws -> LoopbackTLSServer {
        try LoopbackTLSServer(certificateFile: lab.path("server.pem"), keyFile: lab.path("server.key"),
                              response: "HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: \(Self.echo.utf8.count)\r\n\r\n\(Self.echo)")
    }

    /// The generated client on a session that pins `keyFile`'s public key for 127.0.0.1 (no CA:
    /// the pin alone decides, as `performDefaultValidation: false` says).
    private func client(port: Int, pinning keyFile: String) throws -> Client {
        let keys = try SecKey.publicKeys(inFile: keyFile)
        let session = Session(serverTrustManager: ServerTrustManager(evaluators: [
            "127.0.0.1": PublicKeysTrustEvaluator(keys: keys, performDefaultValidation: false),
        ]))
        return Client(serverURL: try #require(URL(string: "https://127.0.0.1:\(port)")), transport: LariatTransport(session: session))
    }

    @Test("the server's own key pinned: the generated call succeeds over TLS")
    func pinnedKeyAnswers() async throws {
        let lab = try HTTPSLab.shared.get()
        let server = try server(lab)
        defer { server.stop() }
        let echo = try await client(port: server.port, pinning: lab.path("server.pub.pem")).getEcho(query: .init(name: "pinned")).ok.body.json
        #expect(echo.args?.additionalProperties["name"] == "pinned")
        #expect(server.observation.handshakesCompleted == 1)
    }

    @Test("another key pinned: the call fails in the handshake with Lariat's trust error, nothing sent")
    func otherKeyRefused() async throws {
        let lab = try HTTPSLab.shared.get()
        let server = try server(lab)
        defer { server.stop() }
        do {
            _ = try await client(port: server.port, pinning: lab.path("rogue.pem")).getEcho(query: .init(name: "pinned"))
            Issue.record("the call succeeded with a pin that does not match")
        } catch let error as ClientError {
            let afError = try #require(error.underlyingError as? AFError, "\(error.underlyingError)")
            #expect(afError.isServerTrustEvaluationError, "\(afError)")
            #expect(error.operationID == "getEcho")
        }
        #expect(server.observation.plaintext.isEmpty, "request bytes reached a server whose key was not pinned")
    }
}
#endif
