// wire-bench: parse throughput of the Wire codec, in a release build.
//
//   (a) a realistic ~550-byte response head with 12 fields, parsed on one reused parser
//       (head + end events): MB/s, ns per message, allocations per message;
//   (b) a 1 MiB chunked body in 16 KiB chunks: GB/s through the parser (body bytes are handed out
//       as ranges, never copied), ns per chunk.
//
// `wire-bench --only head --iterations N` runs (a) alone, for instruction counts under callgrind
// (scripts/bench-wire.sh does that).

import CAllocationCounter
import Wire

@main
struct WireBench {
    static func main() {
        var only: String?
        var iterations = 2_000_000
        var arguments = CommandLine.arguments.dropFirst().makeIterator()
        while let argument = arguments.next() {
            switch argument {
            case "--only": only = arguments.next()
            case "--iterations": iterations = arguments.next().flatMap { Int($0) } ?? iterations
            default:
                print("usage: wire-bench [--only head|chunked] [--iterations N]")
                return
            }
        }
        if only == nil || only == "head" { benchmarkHead(iterations: iterations, quiet: only != nil) }
        if only == nil || only == "chunked" { benchmarkChunked(iterations: max(1, iterations / 2000)) }
    }

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

    static func benchmarkHead(iterations: Int, quiet: Bool) {
        var parser = ResponseParser()
        var fieldsSeen = 0
        let clock = ContinuousClock()
        var allocationsBefore: UInt64 = 0
        var start = clock.now
        head.withUnsafeBytes { raw in
            // 1,000 warm-up messages grow the parser's reused storage, then the measured loop.
            for round in 0..<(iterations + 1000) {
                if round == 1000 {
                    allocationsBefore = lariat_allocation_count()
                    start = clock.now
                }
                parser.expectResponse(to: .get)
                var input = raw
                while true {
                    guard let step = try? parser.parse(input) else { fatalError("benchmark input failed to parse") }
                    if case .head(let h) = step.event { fieldsSeen &+= h.fields.count }
                    input = UnsafeRawBufferPointer(rebasing: input[step.consumed...])
                    if case .end = step.event { break }
                }
            }
        }
        let elapsed = clock.now - start
        let allocations = lariat_allocation_count() - allocationsBefore
        if quiet { return }
        let seconds = Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18
        let bytes = Double(head.count * iterations)
        print("(a) head \(head.count) B, \(fieldsSeen / (iterations + 1000)) fields: " +
              "\(format(bytes / seconds / 1e6)) MB/s, \(format(seconds / Double(iterations) * 1e9)) ns/message, " +
              "\(format(Double(allocations) / Double(iterations), digits: 3)) allocations/message")
    }

    static func benchmarkChunked(iterations: Int) {
        let chunk = 16 * 1024, total = 1024 * 1024
        var message = Array("HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n".utf8)
        for _ in 0..<(total / chunk) {
            message += RequestSerializer.chunkHeader(size: chunk).bytes
            message += [UInt8](repeating: 0x61, count: chunk)
            message += RequestSerializer.chunkTrailer
        }
        message += RequestSerializer.lastChunk
        var bodyBytes = 0
        let allocationsBefore = lariat_allocation_count()
        let clock = ContinuousClock()
        let start = clock.now
        for _ in 0..<iterations {
            var parser = ResponseParser()
            parser.expectResponse(to: .get)
            message.withUnsafeBytes { raw in
                var input = raw
                while true {
                    guard let step = try? parser.parse(input) else { fatalError("benchmark input failed to parse") }
                    if case .body(let range) = step.event { bodyBytes &+= range.count }
                    input = UnsafeRawBufferPointer(rebasing: input[step.consumed...])
                    if case .end = step.event { break }
                }
            }
        }
        let elapsed = clock.now - start
        let allocations = lariat_allocation_count() - allocationsBefore
        precondition(bodyBytes == total * iterations, "body bytes lost")
        let seconds = Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18
        print("(b) chunked 1 MiB in 16 KiB chunks: \(format(Double(message.count * iterations) / seconds / 1e9)) GB/s, " +
              "\(format(seconds / Double(iterations * total / chunk) * 1e9)) ns/chunk, " +
              "\(format(Double(allocations) / Double(iterations), digits: 1)) allocations/message (parser creation included)")
    }

    static func format(_ value: Double, digits: Int = 1) -> String {
        var scale = 1.0
        for _ in 0..<digits { scale *= 10 }
        let scaled = Int(value * scale + 0.5)  // no libm: the binary links the stdlib only
        let whole = scaled / Int(scale), fraction = scaled % Int(scale)
        guard digits > 0 else { return "\(whole)" }
        let text = String(fraction)
        return "\(whole)." + String(repeating: "0", count: digits - text.count) + text
    }
}
