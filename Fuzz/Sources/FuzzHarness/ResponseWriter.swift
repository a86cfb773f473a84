// A test-only response writer: turns recorded events back into bytes, for the round-trip oracle.
// Status line and fields are written as parsed (one line per field, so obs-fold disappears);
// bodies are framed as their heads say, with chunked bodies re-cut at new, seeded boundaries and
// no extensions. Parsing the result must give the same events.

import Wire

struct ResponseWriter {
    private(set) var bytes: [UInt8] = []
    private var chunkState: UInt64

    init(seed: UInt64) { chunkState = seed &* 0x9E37_79B9_7F4A_7C15 | 1 }

    /// Writes complete responses: interim heads, heads, bodies, ends and upgrades, in stream order.
    mutating func write(_ events: [Event]) {
        var framing = BodyFraming.none
        for event in events {
            switch event {
            case .interim(let head):
                writeHead(head)
            case .head(let head):
                writeHead(head)
                framing = head.framing
            case .body(let body):
                if framing == .chunked { writeChunks(body) } else { bytes += body }
            case .end(let trailers, _, _):
                if framing == .chunked {
                    bytes += Array("0\r\n".utf8)
                    writeFields(trailers)
                    bytes += [0x0D, 0x0A]
                }
                framing = .none
            case .upgraded(let head, let rest):
                writeHead(head)
                bytes += rest
            case .failed:
                preconditionFailure("only complete responses are written")
            }
        }
    }

    private mutating func writeHead(_ head: CopiedHead) {
        bytes += Array("HTTP/1.\(head.version.minor) \(head.status) ".utf8)
        bytes += head.reason
        bytes += [0x0D, 0x0A]
        writeFields(head.fields)
        bytes += [0x0D, 0x0A]
    }

    private mutating func writeFields(_ fields: [CopiedField]) {
        for field in fields {
            bytes += field.name
            bytes += [0x3A, 0x20]
            bytes += field.value
            bytes += [0x0D, 0x0A]
        }
    }

    /// Writes `body` as chunks of 1 to 64 bytes (lowercase hex sizes), without the last chunk.
    private mutating func writeChunks(_ body: [UInt8]) {
        var i = 0
        while i < body.count {
            chunkState ^= chunkState << 13
            chunkState ^= chunkState >> 7
            chunkState ^= chunkState << 17
            let n = min(Int(chunkState % 64) + 1, body.count - i)
            bytes += Array(String(n, radix: 16).utf8)
            bytes += [0x0D, 0x0A]
            bytes += body[i..<(i + n)]
            bytes += [0x0D, 0x0A]
            i += n
        }
    }
}
