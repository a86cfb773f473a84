// Redirects and challenges against ScriptedServer (raw bytes on loopback): what httpbin cannot
// show: a redirect loop, a cross-origin hop on a second port that must not receive
// Authorization, the exact second request after 303/307, a body too long to drain, keep-alive
// after a drained body, and every redirect handler behaviour.
#if FullFoundation
import Foundation
#else
import FoundationEssentials
#endif
import Testing
import Dispatch
import Synchronization
import LariatTestSupport
@testable import Client

extension ClientIntegrationTests {
    @Suite("Redirects (scripted)")
    struct RedirectScriptedTests {
        let session = Session(configuration: .ephemeral)  // its own cookie storage: other tests store cookies for 127.0.0.1 in the shared one

        private func text(_ bytes: [UInt8]) -> String { String(decoding: bytes, as: UTF8.self) }
        private func redirect(_ status: String, to location: String, body: String = "") -> ScriptedServer.Step {
            .send("HTTP/1.1 \(status)\r\nLocation: \(location)\r\nContent-Length: \(body.utf8.count)\r\n\r\n\(body)")
        }

        @Test("a redirect loop ends after 16 hops with httpTooManyRedirects")
        func loop() async throws {
            let hop: [ScriptedServer.Step] = [.expectRequest, redirect("302 Found", to: "/loop", body: "again")]
            let server = try ScriptedServer(script: Array(repeating: hop, count: 20).flatMap { $0 }, forEveryConnection: true)
            defer { server.stop() }
            let request = session.request("http://127.0.0.1:\(server.port)/loop")
            let response = await request.serializingData().response
            #expect(sessionTaskURLError(response.result)?.code == .httpTooManyRedirects, "\(response.result)")
            #expect(server.requests.count == 17, "the first request and 16 redirects")
            #expect(server.connectionCount == 1, "drained redirect bodies keep the connection alive")
        }

        @Test("httpMaximumRedirects bounds the hops; 0 follows none")
        func configuredLimit() async throws {
            let hop: [ScriptedServer.Step] = [.expectRequest, redirect("301 Moved Permanently", to: "/loop")]
            let server = try ScriptedServer(script: Array(repeating: hop, count: 5).flatMap { $0 }, forEveryConnection: true)
            defer { server.stop() }
            let configuration = URLSessionConfiguration.af.default
            configuration.httpMaximumRedirects = 2
            let limited = Session(configuration: configuration)
            let response = await limited.request("http://127.0.0.1:\(server.port)/").serializingData().response
            #expect(sessionTaskURLError(response.result)?.code == .httpTooManyRedirects)
            #expect(server.requests.count == 3)
        }

        @Test("a cross-origin redirect does not carry Authorization or Cookie to the other port")
        func crossOrigin() async throws {
            let target = try ScriptedServer(script: [.expectRequest, cannedResponse("landed")])
            defer { target.stop() }
            let origin = try ScriptedServer(script: [.expectRequest, redirect("302 Found", to: "http://127.0.0.1:\(target.port)/landing")])
            defer { origin.stop() }
            // Its own cookie storage: cookies other suites left in the shared one for 127.0.0.1
            // would rightly go to any port of that host (RFC 6265 cookies ignore ports).
            let isolated = Session(configuration: .ephemeral)
            let response = await isolated.request("http://127.0.0.1:\(origin.port)/start",
                                                 headers: ["Authorization": "Bearer secret", "Cookie": "a=b", "X-Kept": "1"])
                .serializingString().response
            #expect(response.value == "landed")
            #expect(response.request?.url?.absoluteString == "http://127.0.0.1:\(origin.port)/start", "the request made")
            #expect(response.metrics?.transactionMetrics.last?.request.url?.absoluteString == "http://127.0.0.1:\(target.port)/landing")
            #expect(response.response?.url?.absoluteString == "http://127.0.0.1:\(target.port)/landing")
            let first = text(try #require(origin.requests.first))
            let second = text(try #require(target.requests.first))
            #expect(first.contains("Authorization: Bearer secret"))
            #expect(!second.lowercased().contains("authorization"), "\(second)")
            #expect(!second.lowercased().contains("cookie"), "\(second)")
            #expect(second.contains("X-Kept: 1"))
        }

        @Test("a same-origin redirect keeps Authorization")
        func sameOrigin() async throws {
            let server = try ScriptedServer(script: [.expectRequest, redirect("302 Found", to: "/b"), .expectRequest, cannedResponse()])
            defer { server.stop() }
            _ = await session.request("http://127.0.0.1:\(server.port)/a", headers: ["Authorization": "Bearer secret"]).serializingData().response
            #expect(server.requests.count == 2)
            #expect(server.requests.allSatisfy { text($0).contains("Authorization: Bearer secret") })
        }

        @Test("303 after POST: GET without body or Content-Type")
        func seeOtherAfterPost() async throws {
            let server = try ScriptedServer(script: [.expectRequest, redirect("303 See Other", to: "/done"), .expectRequest, cannedResponse("done")])
            defer { server.stop() }
            let response = await session.request("http://127.0.0.1:\(server.port)/form", method: .post,
                                                 parameters: ["a": "1"]).serializingString().response
            #expect(response.value == "done")
            let second = text(try #require(server.requests.last))
            #expect(second.hasPrefix("GET /done HTTP/1.1\r\n"), "\(second)")
            #expect(!second.contains("Content-Type"))
            #expect(second.hasSuffix("\r\n\r\n"), "no body")
            #expect(response.request?.httpMethod == "POST", "the request made")
            #expect(response.metrics?.transactionMetrics.last?.request.httpMethod == "GET")
        }

        @Test("307 after POST: the same method and body again")
        func temporaryRedirectAfterPost() async throws {
            let server = try ScriptedServer(script: [.expectRequest, redirect("307 Temporary Redirect", to: "/again"), .expectRequest, cannedResponse()])
            defer { server.stop() }
            _ = await session.request("http://127.0.0.1:\(server.port)/form", method: .post, parameters: ["a": "1"]).serializingData().response
            let second = text(try #require(server.requests.last))
            #expect(second.hasPrefix("POST /again HTTP/1.1\r\n"), "\(second)")
            #expect(second.hasSuffix("\r\n\r\na=1"), "\(second)")
        }

        @Test("308 re-reads an upload's data body")
        func permanentRedirectUpload() async throws {
            let server = try ScriptedServer(script: [.expectRequest, redirect("308 Permanent Redirect", to: "/again"), .expectRequest, cannedResponse()])
            defer { server.stop() }
            _ = await session.upload(Data("payload".utf8), to: "http://127.0.0.1:\(server.port)/up", method: .put).serializingData().response
            let second = text(try #require(server.requests.last))
            #expect(second.hasPrefix("PUT /again HTTP/1.1\r\n"), "\(second)")
            #expect(second.hasSuffix("\r\n\r\npayload"), "\(second)")
        }

        @Test("307 re-reads a file upload from its start")
        func fileUploadRedirect() async throws {
            let file = FileManager.default.temporaryDirectory.appendingPathComponent("redirect-upload-\(UInt64.random(in: 0...UInt64.max)).txt")
            try Data("file body".utf8).write(to: file)
            defer { try? FileManager.default.removeItem(at: file) }
            let server = try ScriptedServer(script: [.expectRequest, redirect("307 Temporary Redirect", to: "/again"), .expectRequest, cannedResponse()])
            defer { server.stop() }
            _ = await session.upload(file, to: "http://127.0.0.1:\(server.port)/up").serializingData().response
            #expect(server.requests.count == 2)
            #expect(server.requests.allSatisfy { text($0).hasSuffix("\r\n\r\nfile body") }, "\(server.requests.map { text($0) })")
        }

        @Test("307 re-encodes a multipart body")
        func multipartRedirect() async throws {
            let server = try ScriptedServer(script: [.expectRequest, redirect("307 Temporary Redirect", to: "/again"), .expectRequest, cannedResponse()])
            defer { server.stop() }
            _ = await session.upload(multipartFormData: { $0.append(Data("v".utf8), withName: "k") }, to: "http://127.0.0.1:\(server.port)/up")
                .serializingData().response
            #expect(server.requests.count == 2)
            let bodies = server.requests.map { text($0) }
            #expect(bodies.allSatisfy { $0.contains("name=\"k\"") && $0.contains("multipart/form-data; boundary=") }, "\(bodies)")
        }

        @Test("the resource deadline spans every hop; the idle timeout restarts with each")
        func deadlines() async throws {
            let slowHop: [ScriptedServer.Step] = [.expectRequest, .sleep(.milliseconds(400)), redirect("302 Found", to: "/next")]
            // Idle 0.6 s per hop: three hops of 0.4 s of silence each succeed.
            let idle = try ScriptedServer(script: slowHop + slowHop + [.expectRequest, .sleep(.milliseconds(400)), cannedResponse("done")])
            defer { idle.stop() }
            let idleConfiguration = URLSessionConfiguration.af.default
            idleConfiguration.timeoutIntervalForRequest = 0.6
            let done = await retained(Session(configuration: idleConfiguration)).request("http://127.0.0.1:\(idle.port)/").serializingString().response
            #expect(done.value == "done", "\(done.result)")
            // Total 1 s: the third hop's silence passes it.
            let total = try ScriptedServer(script: slowHop + slowHop + [.expectRequest, .sleep(.milliseconds(800)), cannedResponse("late")])
            defer { total.stop() }
            let totalConfiguration = URLSessionConfiguration.af.default
            totalConfiguration.timeoutIntervalForResource = 1
            let late = await retained(Session(configuration: totalConfiguration)).request("http://127.0.0.1:\(total.port)/").serializingString().response
            #expect(sessionTaskURLError(late.result)?.code == .timedOut, "\(late.result)")
        }

        @Test(".doNotFollow delivers the redirect response with its body")
        func doNotFollow() async throws {
            let server = try ScriptedServer(script: [.expectRequest, redirect("302 Found", to: "/elsewhere", body: "moved")])
            defer { server.stop() }
            let response = await session.request("http://127.0.0.1:\(server.port)/").redirect(using: .doNotFollow).serializingString().response
            #expect(response.response?.statusCode == 302)
            #expect(response.value == "moved")
            #expect(server.requests.count == 1)
        }

        @Test("a session's handler applies; a request's own wins")
        func sessionHandler() async throws {
            let server = try ScriptedServer(script: [.expectRequest, redirect("302 Found", to: "/x"), .expectRequest, cannedResponse("x"),
                                                     .expectRequest, redirect("302 Found", to: "/y")], forEveryConnection: false)
            defer { server.stop() }
            let refusing = Session(redirectHandler: Redirector.doNotFollow)
            let followed = await refusing.request("http://127.0.0.1:\(server.port)/").redirect(using: .follow).serializingString().response
            #expect(followed.value == "x")
            let refused = await refusing.request("http://127.0.0.1:\(server.port)/").serializingString().response
            #expect(refused.response?.statusCode == 302)
        }

        @Test(".modify sends the closure's request; the redirect body is not in the final response")
        func modify() async throws {
            let server = try ScriptedServer(script: [.expectRequest, redirect("302 Found", to: "/original", body: "old body"),
                                                     .expectRequest, cannedResponse("modified")])
            defer { server.stop() }
            let seen = RedirectTestBox<[String]>([])
            let response = await session.request("http://127.0.0.1:\(server.port)/start")
                .redirect(using: .modify { task, request, response in
                    seen.set([request.url?.path ?? "", "\(response.statusCode)", task.originalRequest?.url?.path ?? ""])
                    var changed = request
                    changed.url = URL(string: "http://127.0.0.1:\(server.port)/changed")
                    return changed
                })
                .serializingString().response
            #expect(response.value == "modified")
            #expect(seen.get() == ["/original", "302", "/start"])
            #expect(text(try #require(server.requests.last)).hasPrefix("GET /changed "))
        }

        @Test(".modify returning nil delivers the redirect")
        func modifyNil() async throws {
            let server = try ScriptedServer(script: [.expectRequest, redirect("301 Moved Permanently", to: "/o", body: "here")])
            defer { server.stop() }
            let response = await session.request("http://127.0.0.1:\(server.port)/").redirect(using: .modify { _, _, _ in nil })
                .serializingString().response
            #expect(response.response?.statusCode == 301)
            #expect(response.value == "here")
        }

        /// What a stream request's consumer saw: every response head given to `onHTTPResponse`,
        /// the chunks' text, and the completion.
        private func streamed(_ request: DataStreamRequest) async -> (heads: [Int], body: String, completion: DataStreamRequest.Completion) {
            let heads = RedirectTestBox<[Int]>([])
            let body = RedirectTestBox<String>("")
            let queue = DispatchQueue(label: "redirect-stream")
            request.onHTTPResponse(on: queue) { response in heads.set(heads.get() + [response.statusCode]) }
            let completion = await withCheckedContinuation { (continuation: CheckedContinuation<DataStreamRequest.Completion, Never>) in
                request.responseStream(on: queue) { stream in
                    switch stream.event {
                    case .stream(.success(let data)): body.set(body.get() + String(decoding: data, as: UTF8.self))
                    case .complete(let completion): continuation.resume(returning: completion)
                    }
                }
            }
            return (heads.get(), body.get(), completion)
        }

        // A stream request's consumer sees a redirect's head and body only when the handler
        // declined it: with `.modify` the 3xx is held until the handler answered (URLSession
        // asks before delivering any of it).
        @Test("a stream request through .modify sees only the final response",
              arguments: [(follows: true, heads: [200], body: "final"), (follows: false, heads: [302], body: "old body")])
        func streamThroughModify(follows: Bool, heads: [Int], body: String) async throws {
            let server = try ScriptedServer(script: [.expectRequest, redirect("302 Found", to: "/next", body: "old body"),
                                                     .expectRequest, cannedResponse("final")])
            defer { server.stop() }
            let request = session.streamRequest("http://127.0.0.1:\(server.port)/start")
                .redirect(using: .modify { _, request, _ in follows ? request : nil })
            let seen = await streamed(request)
            #expect(seen.heads == heads)
            #expect(seen.body == body)
            #expect(seen.completion.error == nil)
            #expect(seen.completion.response?.statusCode == heads.last)
        }

        @Test("a stream request with .doNotFollow streams the redirect's head and body")
        func streamDoNotFollow() async throws {
            let server = try ScriptedServer(script: [.expectRequest, redirect("302 Found", to: "/next", body: "moved")])
            defer { server.stop() }
            let seen = await streamed(session.streamRequest("http://127.0.0.1:\(server.port)/").redirect(using: .doNotFollow))
            #expect(seen.heads == [302])
            #expect(seen.body == "moved")
            #expect(seen.completion.error == nil)
        }

        @Test("a held redirect body past the cap, declined by the handler, fails (never a truncated success)")
        func heldOverflowDeclined() async throws {
            let big = String(repeating: "x", count: 1 << 20)
            let server = try ScriptedServer(script: [.expectRequest,
                .send("HTTP/1.1 302 Found\r\nLocation: /next\r\nContent-Length: \(big.utf8.count)\r\n\r\n"), .send(big), .waitForClientClose])
            defer { server.stop() }
            let seen = await streamed(session.streamRequest("http://127.0.0.1:\(server.port)/").redirect(using: .modify { _, _, _ in nil }))
            #expect(seen.body.isEmpty)
            #expect(seen.completion.error != nil)
        }

        @Test("a redirect body past the drain cap closes the connection and the redirect is followed")
        func longBody() async throws {
            let big = String(repeating: "x", count: 1 << 20)
            let server = try ScriptedServer(scripts: .inOrder([
                [.expectRequest, .send("HTTP/1.1 302 Found\r\nLocation: /next\r\nContent-Length: \(big.utf8.count)\r\n\r\n"), .send(big), .waitForClientClose],
                [.expectRequest, cannedResponse("next")],
            ]))
            defer { server.stop() }
            let response = await session.request("http://127.0.0.1:\(server.port)/").serializingString().response
            #expect(response.value == "next", "\(response.result)")
            #expect(server.connectionCount == 2)
        }

        @Test("a download through a user's redirect handler leaves no file of the redirect behind")
        func downloadRedirect() async throws {
            let marker = "redirect-body-\(UInt64.random(in: 0...UInt64.max))"
            let server = try ScriptedServer(script: [.expectRequest, redirect("302 Found", to: "/file", body: marker),
                                                     .expectRequest, cannedResponse("the file")])
            defer { server.stop() }
            let response = await session.download("http://127.0.0.1:\(server.port)/start")
                .redirect(using: .modify { _, request, _ in request })
                .serializingData().response
            defer { response.fileURL.map { try? FileManager.default.removeItem(at: $0) } }
            #expect(response.value.map { String(decoding: $0, as: UTF8.self) } == "the file")
            let directory = FileManager.default.temporaryDirectory
            let names = (try? FileManager.default.contentsOfDirectory(atPath: directory.path)) ?? []
            let leftovers = names.filter { name in
                name.hasPrefix("Lariat_") && name.hasSuffix(".download")
                    && (try? Data(contentsOf: directory.appendingPathComponent(name))) == Data(marker.utf8)
            }
            #expect(leftovers.isEmpty, "\(leftovers)")
        }

        @Test("a redirect to another scheme fails with unsupportedURL")
        func otherScheme() async throws {
            let server = try ScriptedServer(script: [.expectRequest, redirect("302 Found", to: "ftp://127.0.0.1/file")])
            defer { server.stop() }
            let response = await session.request("http://127.0.0.1:\(server.port)/").serializingData().response
            #expect(sessionTaskURLError(response.result)?.code == .unsupportedURL)
        }

        @Test("cancel while a user's handler decides ends the request cancelled")
        func cancelDuringHandler() async throws {
            let server = try ScriptedServer(script: [.expectRequest, redirect("302 Found", to: "/x")])
            defer { server.stop() }
            let request = session.request("http://127.0.0.1:\(server.port)/")
            request.redirect(using: .modify { _, next, _ in
                request.cancel()
                return next
            })
            let response = await request.serializingData().response
            #expect(response.error?.isExplicitlyCancelledError == true, "\(response.result)")
            #expect(server.requests.count == 1)
        }

        @Test("a 401 with Basic is answered with the request's credential; Authorization is not sent first")
        func basicChallenge() async throws {
            let server = try ScriptedServer(script: [
                .expectRequest, .send("HTTP/1.1 401 Unauthorized\r\nWWW-Authenticate: Basic realm=\"r\"\r\nContent-Length: 4\r\n\r\nnope"),
                .expectRequest, cannedResponse("welcome"),
            ])
            defer { server.stop() }
            let response = await session.request("http://127.0.0.1:\(server.port)/private")
                .authenticate(username: "user", password: "pass").serializingString().response
            #expect(response.value == "welcome")
            #expect(!text(server.requests[0]).contains("Authorization"))
            #expect(text(server.requests[1]).contains("Authorization: Basic dXNlcjpwYXNz\r\n"))
        }

        @Test("Digest stale=true is answered once more with the new nonce; a third 401 is delivered")
        func digestStale() async throws {
            func challenge(_ nonce: String, stale: Bool) -> ScriptedServer.Step {
                .send("HTTP/1.1 401 Unauthorized\r\nWWW-Authenticate: Digest realm=\"r\", nonce=\"\(nonce)\", qop=\"auth\", algorithm=SHA-256\(stale ? ", stale=true" : "")\r\nContent-Length: 0\r\n\r\n")
            }
            let server = try ScriptedServer(script: [
                .expectRequest, challenge("n1", stale: false), .expectRequest, challenge("n2", stale: true),
                .expectRequest, challenge("n3", stale: true),
            ])
            defer { server.stop() }
            let response = await session.request("http://127.0.0.1:\(server.port)/d").authenticate(username: "u", password: "p")
                .serializingData().response
            #expect(response.response?.statusCode == 401)
            #expect(server.requests.count == 3, "the first request, the answer, one more answer for stale=true")
            let answers = server.requests.dropFirst().map { text($0) }
            #expect(answers.first?.contains("nonce=\"n1\"") == true)
            #expect(answers.last?.contains("nonce=\"n2\"") == true)
            #expect(answers.allSatisfy { $0.contains("Authorization: Digest username=\"u\"") && $0.contains("algorithm=SHA-256") })
        }

        @Test("a 401 without a credential is delivered, body included")
        func challengeWithoutCredential() async throws {
            let server = try ScriptedServer(script: [
                .expectRequest, .send("HTTP/1.1 401 Unauthorized\r\nWWW-Authenticate: Basic realm=\"r\"\r\nContent-Length: 4\r\n\r\nnope"),
            ])
            defer { server.stop() }
            let configuration = URLSessionConfiguration.af.default
            configuration.urlCredentialStorage = nil
            let response = await retained(Session(configuration: configuration)).request("http://127.0.0.1:\(server.port)/").validate()
                .serializingString().response
            #expect(response.response?.statusCode == 401)
            #expect(response.data.map { String(decoding: $0, as: UTF8.self) } == "nope")
            #expect(response.error?.responseCode == 401)
        }

        @Test("the configuration's credential storage answers by protection space")
        func storageCredential() async throws {
            let server = try ScriptedServer(script: [
                .expectRequest, .send("HTTP/1.1 401 Unauthorized\r\nWWW-Authenticate: Basic realm=\"zone\"\r\nContent-Length: 0\r\n\r\n"),
                .expectRequest, cannedResponse("ok"),
            ])
            defer { server.stop() }
            let storage = URLCredentialStorage()
            storage.setDefaultCredential(URLCredential(user: "s", password: "t", persistence: .forSession),
                                         for: URLProtectionSpace(host: "127.0.0.1", port: server.port, protocol: "http", realm: "zone",
                                                                 authenticationMethod: NSURLAuthenticationMethodHTTPBasic))
            let configuration = URLSessionConfiguration.af.default
            configuration.urlCredentialStorage = storage
            let response = await retained(Session(configuration: configuration)).request("http://127.0.0.1:\(server.port)/").serializingString().response
            #expect(response.value == "ok")
            #expect(text(server.requests[1]).contains("Authorization: Basic czp0\r\n"))
        }
    }
}

/// A value shared with a `@Sendable` closure.
final class RedirectTestBox<Value: Sendable>: Sendable {
    private let storage: Mutex<Value>
    init(_ value: Value) { storage = Mutex(value) }
    func set(_ new: Value) { storage.withLock { $0 = new } }
    func get() -> Value { storage.withLock { $0 } }
}
