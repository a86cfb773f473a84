// DataStreamRequest against httpbin (LARIAT_HTTPBIN): /stream/n (one JSON line per chunk),
// /drip (bytes over time), /bytes (a binary body, byte-exact against the seed's second request).
#if FullFoundation
import Foundation
#else
import FoundationEssentials
#endif
import Dispatch
import Testing
import LariatTestSupport
@testable import Client

/// The httpbin base URL from the environment, or nil when the suite must be skipped.
private let streamHTTPBin: String? = ProcessInfo.processInfo.environment["LARIAT_HTTPBIN"].flatMap { $0.isEmpty ? nil : $0 }

extension ClientIntegrationTests {
    @Suite("DataStreamRequest against httpbin", .enabled(if: streamHTTPBin != nil, "LARIAT_HTTPBIN is not set"))
    struct DataStreamHTTPBinTests {
        struct Line: Decodable, Sendable { let id: Int }

        /// `/stream/5`: five JSON lines, joined and split by line, ids 0...4 in order.
        @Test func streamLines() async throws {
            let base = try #require(streamHTTPBin)
            var text = ""
            var completed = false
            for await event in retained(Session()).streamRequest("\(base)/stream/5").streamTask().streamingStrings() {
                if let chunk = event.value { text += chunk }
                if let completion = event.completion {
                    #expect(completion.error == nil)
                    #expect(completion.response?.statusCode == 200)
                    completed = true
                }
            }
            #expect(completed)
            let ids = try text.split(separator: "\n").map { try JSONDecoder().decode(Line.self, from: Data($0.utf8)).id }
            #expect(ids == [0, 1, 2, 3, 4])
        }

        /// `/drip`: 10 bytes over about a second, in several chunks, all of them.
        @Test func drip() async throws {
            let base = try #require(streamHTTPBin)
            var bytes = 0
            var chunks = 0
            for await event in retained(Session()).streamRequest("\(base)/drip?numbytes=10&duration=1&delay=0").streamTask().streamingData() {
                if let data = event.value {
                    bytes += data.count
                    chunks += 1
                }
            }
            #expect(bytes == 10)
            #expect(chunks > 1, "a drip arrives in pieces")
        }

        /// `/bytes/100000?seed=3` (httpbin's cap is 100 KiB) streamed equals the same body collected by a DataRequest.
        @Test func bytesMatchTheCollectedBody() async throws {
            let base = try #require(streamHTTPBin)
            let url = "\(base)/bytes/100000?seed=3"
            let whole = try await retained(Session()).request(url).serializingData().value
            var streamed = Data()
            for await event in retained(Session()).streamRequest(url).streamTask().streamingData() {
                if let data = event.value { streamed.append(data) }
            }
            #expect(streamed.count == 100_000)
            #expect(streamed == whole)
        }

        /// `validate()` on a 404: the completion carries the validation error.
        @Test func validationOfA404() async throws {
            let base = try #require(streamHTTPBin)
            let done = ResponseWaiter<DataStreamRequest.Completion>()
            retained(Session()).streamRequest("\(base)/status/404").validate().responseStream(on: DispatchQueue(label: "c")) { stream in
                if let completion = stream.completion { done.deliver(completion) }
            }
            let completion = await done.response(cancelling: nil)
            #expect(completion.error?.responseCode == 404)
        }
    }
}
