// One full request/response round trip through `Session` on a kept-alive loopback connection
// (package-benchmark), one request per iteration, so every metric in the table is per request:
// mallocs (all threads: the caller, the event loop, the completion queue), retains and releases
// (code compiled into the binary, all threads), wall clock and requests/s.
//
// The server is `LoopbackResponder`, started here on 127.0.0.1, which allocates nothing per
// request; it answers a 1 KiB body with nginx's header set for a static file. Warm-up requests
// open the connection first, so the measured requests all reuse it.
//
// Two ways to wait for the response, as users write them:
// - `serializingData().value` (async/await: a Task and a continuation per request);
// - `responseData(queue:)` with a completion handler, waited for with a semaphore.
// Allocation counts are the CI gate with a tolerance of 1 per request; times are informative.
import Benchmark
import Client
import Dispatch
import Foundation
import MicroSupport

/// nginx 1.22's answer for a static 1 KiB file, body included.
let cannedResponse: [UInt8] = Array((
    "HTTP/1.1 200 OK\r\n" +
    "Server: nginx/1.22.1\r\n" +
    "Date: Sun, 22 Nov 2026 04:31:07 GMT\r\n" +
    "Content-Type: application/octet-stream\r\n" +
    "Content-Length: 1024\r\n" +
    "Last-Modified: Sun, 22 Nov 2026 04:30:00 GMT\r\n" +
    "Connection: keep-alive\r\n" +
    "ETag: \"6a2f1c38-400\"\r\n" +
    "Accept-Ranges: bytes\r\n" +
    "\r\n").utf8) + [UInt8](repeating: 0x61, count: 1024)

let responder = LoopbackResponder(response: cannedResponse)
/// No URLCache: the canned answer has validators, so the default configuration's memory cache
/// would revalidate and store every response; this measures the transport's round trip.
let session: Session = {
    let configuration = URLSessionConfiguration.af.default
    configuration.urlCache = nil
    return Session(configuration: configuration)
}()
let url = "http://127.0.0.1:\(responder.port)/1k.bin"
let completionQueue = DispatchQueue(label: "bench.completion")

let benchmarks: @Sendable () -> Void = {
    let configuration = Benchmark.Configuration(
        metrics: MicroMetrics.all, warmupIterations: 50, maxDuration: .seconds(3), maxIterations: 5_000,
        thresholds: MicroMetrics.mallocGate(allowedExtraMallocs: 1)
    )

    Benchmark("SessionRoundTrip_1KiB_async", configuration: configuration) { benchmark in
        let data = try await benchmark.measureWithARC {
            try await session.request(url).serializingData().value
        }
        precondition(data.count == 1024, "unexpected body: \(data.count) bytes")
    }

    Benchmark("SessionRoundTrip_1KiB_completion", configuration: configuration) { benchmark in
        let done = DispatchSemaphore(value: 0)
        benchmark.measureWithARC {
            session.request(url).responseData(queue: completionQueue) { response in
                precondition(response.data?.count == 1024, "unexpected body: \(String(describing: response.data))")
                done.signal()
            }
            done.wait()
        }
    }
}
