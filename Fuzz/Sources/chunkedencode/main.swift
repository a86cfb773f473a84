// libFuzzer target: the chunked encoder round trip. The input is cut into chunks (a length byte,
// then that many data bytes; a zero length byte reads a two-byte length for larger chunks), the
// chunks are framed with Wire's serializer (`RequestSerializer.chunkHeader(size:)`,
// `chunkTrailer`, `lastChunk`) behind a chunked response head, and the stream is parsed back.
//
// Oracles: never traps; each chunk-size line is lower-case hex without leading zeros that reads
// back as the size; parsing the stream whole, split inside the first chunk-size line and split
// where the input's first byte points gives exactly the input's data, one end without trailers,
// and consumes every byte. (Every split of every input is WireTests' job; three keep the rate up.)
import FuzzHarness
import Wire

@main
enum ChunkedEncodeFuzzer {
    static func main() {
        FuzzEntry.run { data, count in
            ChunkedEncodeFuzzer.one(data, count)
            return 0
        }
    }

    /// Checks one input.
    static func one(_ data: UnsafePointer<UInt8>?, _ count: Int) {
        let input = data.map { Array(UnsafeBufferPointer(start: $0, count: count)) } ?? []
        var chunks: [[UInt8]] = []
        var i = 0
        while i < input.count {
            var length = Int(input[i])
            i += 1
            if length == 0 {
                guard i + 1 < input.count else { break }
                length = Int(input[i]) << 8 | Int(input[i + 1]) + 1
                i += 2
            }
            let end = min(i + length, input.count)
            if end > i { chunks.append(Array(input[i..<end])) }
            i = end
        }
        var stream = Array("HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n".utf8)
        let headLength = stream.count
        for chunk in chunks {
            let line = RequestSerializer.chunkHeader(size: chunk.count).bytes
            let digits = String(decoding: line.dropLast(2), as: UTF8.self)
            check(line.suffix(2) == [13, 10] && Int(digits, radix: 16) == chunk.count && digits == String(chunk.count, radix: 16), "chunk line \(digits.debugDescription) for \(chunk.count)")
            stream += line + chunk + RequestSerializer.chunkTrailer
        }
        stream += RequestSerializer.lastChunk
        let expected = chunks.flatMap { $0 }
        // Whole, inside the first chunk-size line, and at a point the input picks.
        let pick = input.first.map { Int($0) } ?? 0
        for split in [stream.count, min(stream.count, headLength + 1 + pick % 8), headLength + pick * 31 % (stream.count - headLength + 1)] {
            let body = parse(stream, split: split)
            check(body == expected, "split \(split): body of \(body.count) bytes, expected \(expected.count)")
        }
    }

    /// Parses `stream` delivered in two pieces and returns the body.
    static func parse(_ stream: [UInt8], split: Int) -> [UInt8] {
        var parser = ResponseParser()
        parser.expectResponse(to: .get)
        var body: [UInt8] = []
        var consumed = 0
        var ended = false
        for received in [split, stream.count] where received >= consumed {
            while !ended {
                let result = stream[consumed..<received].withUnsafeBytes { window in
                    Result { () throws(WireError) -> ParseStep in
                        let step = try parser.parse(window)
                        if case .body(let range) = step.event { body += window[range] }
                        return step
                    }
                }
                guard case .success(let step) = result else {
                    check(false, "the parser refused the encoder's output: \(result)")
                    return body
                }
                consumed += step.consumed
                if case .end(let end) = step.event {
                    check(end.trailers.isEmpty && end.keepAlive, "end \(end)")
                    ended = true
                }
                if step.event == .needMoreData { break }
            }
        }
        check(ended && consumed == stream.count, "ended \(ended), consumed \(consumed) of \(stream.count)")
        return body
    }

    static func check(_ condition: Bool, _ message: @autoclosure () -> String) {
        if !condition { fatalError("oracle violated: \(message())") }
    }
}
