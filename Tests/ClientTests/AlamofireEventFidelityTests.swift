// Behaviours Alamofire's own suite checks, here against raw bytes on loopback (ScriptedServer):
// a download without a destination still reports its destination URL; a request cancelled from
// onHTTPResponse has no body; a cURL description's body survives the shell; a stream request
// validated with `validate()` reports two validations (status code, then content type); a stream
// cancelled because a chunk failed to decode completes as explicitly cancelled; a stream's
// response is offered to the cache handler and to the monitors' willCacheResponse.
#if FullFoundation
import Foundation
#else
import FoundationEssentials
#endif
import Dispatch
import Glibc
import Synchronization
import Testing
import LariatTestSupport
@testable import Client

extension ClientIntegrationTests {
    @Suite("Alamofire event fidelity")
    struct AlamofireEventFidelityTests {
        @Test("a download without a destination reports didCreateDestinationURL with the file it left")
        func downloadReportsDestination() async throws {
            let server = try ScriptedServer(script: [.expectRequest, cannedResponse("file body")])
            defer { server.stop() }
            let monitor = ClosureEventMonitor(queue: DispatchQueue(label: "fidelity.monitor"))
            let created = Mutex<[URL]>([])
            monitor.requestDidCreateDestinationURL = { _, url in created.withLock { $0.append(url) } }
            let response = await retained(Session(eventMonitors: [monitor])).download("http://127.0.0.1:\(server.port)/f")
                .serializingDownloadedFileURL().response
            defer { if let url = response.fileURL { try? FileManager.default.removeItem(at: url) } }
            // Monitors run on their queue: wait for it to drain.
            await withCheckedContinuation { done in monitor.queue.async { done.resume() } }
            #expect(response.fileURL != nil, "\(response.result)")
            #expect(created.withLock { $0 } == [response.fileURL].compactMap { $0 })
        }

        @Test("a request cancelled from onHTTPResponse has no data, only the head")
        func cancelledFromOnHTTPResponseHasNoData() async throws {
            // The head announces 10 bytes; the body comes only after the handler answered.
            let server = try ScriptedServer(script: [
                .expectRequest, .send("HTTP/1.1 200 OK\r\nContent-Length: 10\r\n\r\n"), .sleep(.seconds(1)), .send("0123456789"),
            ])
            defer { server.stop() }
            let response = await retained(Session()).request("http://127.0.0.1:\(server.port)/")
                .onHTTPResponse(on: .global()) { _, completion in completion(.cancel) }
                .serializingData().response
            #expect(response.error?.isExplicitlyCancelledError == true, "\(response.result)")
            #expect(response.response?.statusCode == 200)
            #expect(response.data == nil, "\(String(describing: response.data))")
        }

        @Test("a cURL description's JSON body, evaluated by /bin/sh, is the body sent")
        func cURLBodyRoundTripsThroughShell() async throws {
            let server = try ScriptedServer(script: [.expectRequest, cannedResponse()])
            defer { server.stop() }
            let parameters = ["plain": "value", "quo\"te": "b\"ar", "apos'trophe": "it's", "back\\slash": "a\\b", "dollar$HOME": "`id`"]
            let session = Session()
            let description = await withCheckedContinuation { done in
                session.request("http://127.0.0.1:\(server.port)/", method: .post, parameters: parameters, encoding: JSONEncoding.default)
                    .cURLDescription { done.resume(returning: $0) }
                    .response { _ in }
            }
            guard let start = description.firstOccurrence(of: "-d \"")?.upperBound else {
                Issue.record("no -d in \(description)")
                return
            }
            // The argument runs to the closing quote at the end of its line.
            let rest = description[start...]
            let line = rest.prefix { $0 != "\n" }
            let argument = String(line.dropLast(line.hasSuffix(" \\") ? 3 : 1))
            let evaluated = try shellEcho("\"\(argument)\"")
            let sent = try? JSONDecoder().decode([String: String].self, from: Data(evaluated.utf8))
            #expect(sent == parameters, "argument: \(argument) evaluated: \(evaluated)")
        }

        @Test("validate() on a stream reports two validations, status code then content type")
        func streamValidateReportsTwoValidations() async throws {
            let server = try ScriptedServer(script: [.expectRequest, cannedResponse("{}", extra: "Content-Type: application/json\r\n")])
            defer { server.stop() }
            let monitor = ClosureEventMonitor(queue: DispatchQueue(label: "fidelity.monitor"))
            let validations = Mutex(0)
            monitor.requestDidValidateRequestResponseWithResult = { _, _, _, _ in validations.withLock { $0 += 1 } }
            let completion = await streamCompletion(retained(Session(eventMonitors: [monitor]))
                .streamRequest("http://127.0.0.1:\(server.port)/").validate())
            await withCheckedContinuation { done in monitor.queue.async { done.resume() } }
            #expect(completion.error == nil)
            #expect(validations.withLock { $0 } == 2)
        }

        @Test("a chunk that fails to decode with automaticallyCancelOnStreamError completes as explicitly cancelled")
        func streamDecodeFailureCancels() async throws {
            // The body after the head, in two reads: the first chunk fails while the request runs.
            let server = try ScriptedServer(script: [
                .expectRequest, .send("HTTP/1.1 200 OK\r\nContent-Length: 50\r\n\r\n"), .sleep(.milliseconds(100)),
                .send(String(repeating: "x", count: 25)), .sleep(.milliseconds(100)), .send(String(repeating: "y", count: 25)),
            ])
            defer { server.stop() }
            let request = retained(Session()).streamRequest("http://127.0.0.1:\(server.port)/", automaticallyCancelOnStreamError: true)
            let completion = await withCheckedContinuation { (done: CheckedContinuation<DataStreamRequest.Completion, Never>) in
                request.responseStreamDecodable(of: [String].self, on: DispatchQueue(label: "fidelity.stream")) { stream in
                    if case .complete(let completion) = stream.event { done.resume(returning: completion) }
                }
            }
            #expect(completion.response?.statusCode == 200)
            #expect(completion.error?.isExplicitlyCancelledError == true, "\(String(describing: completion.error))")
        }

        @Test("a stream's response is offered to its cache handler and to the monitors' willCacheResponse")
        func streamResponseIsOfferedToCache() async throws {
            let server = try ScriptedServer(script: [.expectRequest, cannedResponse("{\"a\":1}", extra: "Cache-Control: max-age=60\r\n")])
            defer { server.stop() }
            let monitor = ClosureEventMonitor(queue: DispatchQueue(label: "fidelity.monitor"))
            let willCache = Mutex<[Data]>([])
            monitor.dataTaskWillCacheResponse = { _, _, proposed in willCache.withLock { $0.append(proposed.data) } }
            let offered = Mutex<[Data]>([])
            let cacher = ResponseCacher(behavior: .modify { _, proposed in
                offered.withLock { $0.append(proposed.data) }
                return nil
            })
            let completion = await streamCompletion(retained(Session(eventMonitors: [monitor]))
                .streamRequest("http://127.0.0.1:\(server.port)/").cacheResponse(using: cacher))
            await withCheckedContinuation { done in monitor.queue.async { done.resume() } }
            #expect(completion.error == nil)
            #expect(offered.withLock { $0 } == [Data("{\"a\":1}".utf8)])
            #expect(willCache.withLock { $0 } == [Data("{\"a\":1}".utf8)])
        }
    }
}

/// The stream's completion, the body streamed as raw data and ignored.
private func streamCompletion(_ request: DataStreamRequest) async -> DataStreamRequest.Completion {
    await withCheckedContinuation { done in
        request.responseStream(on: .global()) { stream in
            if case .complete(let completion) = stream.event { done.resume(returning: completion) }
        }
    }
}

/// What `/bin/sh` prints for `printf %s <word>`: the shell's reading of a quoted word.
private func shellEcho(_ word: String) throws -> String {
    let output = URL(fileURLWithPath: "/tmp/lariat-shell-echo-\(UInt64.random(in: 0...UInt64.max))")
    defer { try? FileManager.default.removeItem(at: output) }
    let status = system("printf %s \(word) > '\(output.path)'")
    #expect(status == 0)
    return String(decoding: try Data(contentsOf: output), as: UTF8.self)
}
