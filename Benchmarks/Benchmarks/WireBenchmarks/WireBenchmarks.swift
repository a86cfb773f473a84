// Micro benchmarks of the Wire codec (package-benchmark): head parsing, chunked decoding and
// request serialization, each on state reused the way a kept-alive connection reuses it (one
// parser, one head buffer), so the numbers are per message on a warm connection.
//
// Head parsing and serialization run 1,000 messages per iteration (`scalingFactor: .kilo`): the
// table prints per-message values (marked `*`), thresholds store per-iteration counts.
// Allocation counts are the CI gate (Thresholds/, check-allocations.sh), exact here: the codec's
// counts are deterministic. Times are informative.
import Benchmark
import MicroSupport
import Wire

let benchmarks: @Sendable () -> Void = {
    Benchmark(
        "HeadParse_562B_12fields",
        configuration: .init(metrics: MicroMetrics.all, scalingFactor: .kilo, maxDuration: .seconds(2),
                             thresholds: MicroMetrics.mallocGate())
    ) { benchmark in
        var parser = ResponseParser()
        WireInputs.head.withUnsafeBytes { raw in
            parseMessage(raw, with: &parser)  // grows the parser's reused storage once
            benchmark.measureWithARC {
                for _ in benchmark.scaledIterations { parseMessage(raw, with: &parser) }
            }
        }
    }

    Benchmark(
        "ChunkedDecode_1MiB_16KiBchunks",
        configuration: .init(metrics: MicroMetrics.all, maxDuration: .seconds(2), thresholds: MicroMetrics.mallocGate())
    ) { benchmark in
        var parser = ResponseParser()
        WireInputs.chunkedMessage.withUnsafeBytes { raw in
            parseMessage(raw, with: &parser)
            benchmark.measureWithARC {
                for _ in benchmark.scaledIterations { parseMessage(raw, with: &parser) }
            }
        }
    }

    Benchmark(
        "RequestSerialize_GET_5fields",
        configuration: .init(metrics: MicroMetrics.all, scalingFactor: .kilo, maxDuration: .seconds(2),
                             thresholds: MicroMetrics.mallocGate())
    ) { benchmark in
        // As HTTP1Connection does: one head buffer per connection, emptied keeping its capacity.
        var buffer: [UInt8] = []
        let head = WireInputs.requestHead
        try RequestSerializer.serialize(head, into: &buffer)
        try benchmark.measureWithARC {
            for _ in benchmark.scaledIterations {
                buffer.removeAll(keepingCapacity: true)
                try RequestSerializer.serialize(head, into: &buffer)
                blackHole(buffer.count)
            }
        }
    }
}

/// Parses one whole response (head, body, end) from `raw` on a reused parser.
func parseMessage(_ raw: UnsafeRawBufferPointer, with parser: inout ResponseParser) {
    parser.expectResponse(to: .get)
    var input = raw
    var bodyBytes = 0
    while true {
        guard let step = try? parser.parse(input) else { fatalError("benchmark input failed to parse") }
        switch step.event {
        case .head(let head): blackHole(head.fields.count)
        case .body(let range): bodyBytes &+= range.count
        case .end: blackHole(bodyBytes); return
        default: break
        }
        input = UnsafeRawBufferPointer(rebasing: input[step.consumed...])
    }
}

/// The inputs, built once.
enum WireInputs {
    /// A realistic nginx-behind-an-app response head: 562 bytes, 12 fields (the same bytes as
    /// `wire-bench`, so the two agree).
    static let head: [UInt8] = Array((
        "HTTP/1.1 200 OK\r\n" +
        "Server: nginx/1.22.1\r\n" +
        "Date: Sun, 22 Nov 2026 04:31:07 GMT\r\n" +
        "Content-Type: application/json; charset=utf-8\r\n" +
        "Content-Length: 0\r\n" +
        "Connection: keep-alive\r\n" +
        "Cache-Control: private, max-age=0, no-cache, no-store, must-revalidate\r\n" +
        "ETag: W/\"5d3-1a2b3c4d5e6f7a8b9c0d1e2f3a4b5c6d7e8f9a0b\"\r\n" +
        "Vary: Accept-Encoding, Origin\r\n" +
        "Strict-Transport-Security: max-age=63072000; includeSubDomains; preload\r\n" +
        "X-Request-Id: 3f2c9a7e-8b41-4d2a-9c6e-1f0a5b7d3e21\r\n" +
        "Set-Cookie: session=8f14e45fceea167a5a36dedd4bea2543; Path=/; HttpOnly; Secure; SameSite=Lax\r\n" +
        "Access-Control-Allow-Origin: https://app.example.com\r\n" +
        "\r\n").utf8)

    /// A 1 MiB body in 64 chunks of 16 KiB, with its head and last chunk.
    static let chunkedMessage: [UInt8] = {
        let chunk = 16 * 1024, total = 1024 * 1024
        var message = Array("HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n".utf8)
        for _ in 0..<(total / chunk) {
            message += RequestSerializer.chunkHeader(size: chunk).bytes
            message += [UInt8](repeating: 0x61, count: chunk)
            message += RequestSerializer.chunkTrailer
        }
        return message + RequestSerializer.lastChunk
    }()

    /// The head `Session` sends for `AF.request("http://127.0.0.1:8080/1k.bin")` with its
    /// default headers.
    static let requestHead = RequestHead(
        method: .get, target: "/1k.bin", authority: "127.0.0.1:8080",
        fields: [
            ("Accept-Encoding", "identity"),
            ("Accept-Language", "en;q=1.0"),
            ("User-Agent", "Lariat/1.0 (Linux; x86_64) Lariat/1.0"),
            ("Accept", "*/*"),
            ("X-Request-Id", "3f2c9a7e-8b41-4d2a-9c6e-1f0a5b7d3e21"),
        ]
    )
}
