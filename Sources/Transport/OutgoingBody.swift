// The request body being written on a connection: the caller's bytes in memory, a file read
// from disk one chunk at a time (a 100 MiB upload holds 256 KiB of it, not 100 MiB), or an
// InputStream read as the socket drains.
//
// A stream whose length the request gave (Content-Length) must produce exactly that many bytes:
// one that ends early, or has more after them, fails the request with a typed error
// (`.requestBodyUnreadable`) — a malformed request (a short body the server would wait for, or
// stray bytes it would read as the next request) never goes out. A stream of unknown length goes
// out with `Transfer-Encoding: chunked` (RFC 9112 §7.1): each read becomes one chunk, and the
// end of the stream the last chunk; only then is the body's wire length known, and the driver
// tells the connection machine (`bodyLengthKnown`).
//
// Stream reads are synchronous on the connection's loop: right for memory and files; a pipe
// that has nothing to give blocks the loop meanwhile (fetch `-T -` runs on a loop of its own).

package import FoundationEssentials
import EventLoop

/// A request body as the transport receives it.
package enum RequestBody: Sendable {
    /// Bytes in memory (`URLRequest.httpBody`, an `upload(Data)`).
    case data(Data)
    /// A file sent from its start, `length` bytes (its size when the request was made).
    case file(path: String, length: Int)
    /// A stream read as the socket drains: `length` bytes exactly (Content-Length), or, when
    /// `nil`, until it ends (chunked).
    case stream(RequestBodyStream, length: Int?)

    /// The number of bytes the body frames as its `Content-Length` (0 for a chunked stream).
    package var count: Int {
        switch self {
        case .data(let data): data.count
        case .file(_, let length): length
        case .stream(_, let length): length ?? 0
        }
    }

    /// Whether the body goes out chunked (a stream of unknown length).
    package var isChunked: Bool { if case .stream(_, nil) = self { true } else { false } }

    /// Whether the body can be sent again (a silent retry): not a stream, whose bytes are gone
    /// once read.
    var isReplayable: Bool { if case .stream = self { false } else { true } }
}

/// Where a streamed request body's bytes come from, read on the connection's loop as the socket
/// drains. InputStream's shape, and Client's InputStream conforms (`InputStream+BodySource.swift`),
/// so the transport names no Foundation stream type.
package protocol BodySource: AnyObject {
    /// Prepares the source for reading; called once, before the first read.
    func open()
    /// Reads up to `maxLength` bytes into `buffer`.
    /// - Returns: The number of bytes read; `0` at the end, negative on an error.
    func read(_ buffer: UnsafeMutablePointer<UInt8>, maxLength len: Int) -> Int
    /// Releases the source; called once, when the body is done with.
    func close()
}

/// A body source fed asynchronously (an OpenAPI `HTTPBody`): its `read` may return
/// ``bodySourceNotReady`` instead of blocking the loop, and it then calls the handler given to
/// ``setReadyHandler(_:)`` once, from any thread, when bytes (or the end, or an error) are there.
/// The connection stops writing meanwhile and resumes on its loop when called.
package protocol PausableBodySource: BodySource {
    /// Installs the wake-up; called once on the connection's loop, before `open()`.
    func setReadyHandler(_ handler: @escaping @Sendable () -> Void)
}

/// What a ``PausableBodySource``'s `read` returns when it has nothing yet (not an error).
package let bodySourceNotReady = Int.min

/// A body source travelling with a request.
// @unchecked Sendable: the stream is read by one connection's loop at a time; an exchange moves
// between threads only through EventLoop.execute, which orders the accesses, and a stream body
// is never retried on another connection (`RequestBody.isReplayable`).
package final class RequestBodyStream: @unchecked Sendable {
    let stream: any BodySource
    package init(_ stream: any BodySource) { self.stream = stream }
}

/// Hands out the next bytes to write and tracks what was sent.
struct OutgoingBody {
    /// How much of a file is read ahead: large enough to fill the socket buffer in one writev.
    static let fileChunkSize = 256 * 1024
    /// How much of a stream is read at a time (one chunk of a chunked body).
    static let streamChunkSize = 64 * 1024
    /// The wire length given to a chunked body until its stream ended: more than any body.
    static let unknownLength = Int.max / 4

    /// In-memory bytes; empty for a file or stream body.
    private let data: Data
    /// The file of a file body, read into `chunk[chunkStart..<chunkEnd]` as the socket drains.
    private let file: File?
    /// The stream of a stream body, likewise.
    private let stream: (any BodySource)?
    /// Whether the stream body is framed with chunked encoding.
    private let chunked: Bool
    /// The stream's bytes read so far (without chunk framing).
    private var streamRead = 0
    /// A chunked body's payload in earlier chunks, and where the current chunk's payload sits in `chunk`.
    private var payloadBefore = 0
    private var payloadRange = 0..<0
    private var chunk: [UInt8] = []
    private var chunkStart = 0
    private var chunkEnd = 0
    /// The stream said ``bodySourceNotReady``: nothing to write until its ready handler runs.
    private(set) var isWaitingForSource = false
    /// The body's length in bytes on the wire (what the request frames as Content-Length; for a
    /// chunked body, `unknownLength` until the stream ended, then the framed total).
    private(set) var length: Int
    /// Bytes handed to the socket (or TLS) so far.
    private(set) var sent = 0

    /// An empty body.
    init() {
        data = Data()
        file = nil
        stream = nil
        chunked = false
        length = 0
    }

    /// Prepares `body` for writing; a file is opened here, a stream too.
    /// - Throws: `SocketError` from `open` when the file cannot be read.
    init(_ body: RequestBody?) throws(SocketError) {
        var (data, file, stream, chunked, length): (Data, File?, (any BodySource)?, Bool, Int) = (Data(), nil, nil, false, 0)
        switch body {
        case nil:
            break
        case .data(let bytes):
            (data, length) = (bytes, bytes.count)
        case .file(let path, let size):
            file = try File(path: path, mode: .read)
            length = size
        case .stream(let box, let size):
            stream = box.stream
            box.stream.open()
            chunked = size == nil
            length = size ?? Self.unknownLength
        }
        (self.data, self.file, self.stream, self.chunked, self.length) = (data, file, stream, chunked, length)
    }

    /// Whether every byte was sent.
    var isComplete: Bool { sent == length }

    /// Whether the body goes out chunked (a stream of unknown length).
    var isChunked: Bool { chunked }

    /// The body's own bytes sent, without chunk framing (what upload progress counts).
    var payloadSent: Int {
        guard chunked else { return sent }
        return payloadBefore + min(max(chunkStart - payloadRange.lowerBound, 0), payloadRange.count)
    }

    /// Whether the wire length is still unknown (a chunked stream that has not ended).
    var isLengthUnknown: Bool { length == Self.unknownLength }

    /// Calls `body` with the bytes to write next: empty once everything was sent. A file or
    /// stream is read when the previous chunk is used up.
    /// - Throws: `SocketError` when the file or stream cannot be read, or `.other` with syscall
    ///   `"read"` and errno 0 when it ends before `length` bytes (a file that shrank, a stream
    ///   shorter than its Content-Length) or a stream has bytes beyond its Content-Length.
    mutating func withNextBytes<R>(_ body: (UnsafeRawBufferPointer) -> R) throws(SocketError) -> R {
        if let stream {
            if chunkStart == chunkEnd && sent < length && !isWaitingForSource { try readStream(stream) }
        } else if let file {
            if chunkStart == chunkEnd && sent < length {
                if chunk.isEmpty { chunk = [UInt8](repeating: 0, count: Self.fileChunkSize) }
                let wanted = min(chunk.count, length - sent)
                let n = try chunk.withUnsafeMutableBytes { raw in
                    Result { () throws(SocketError) in try file.read(into: UnsafeMutableRawBufferPointer(rebasing: raw[0..<wanted])) }
                }.get()
                guard n > 0 else { throw SocketError(kind: .other, syscall: "read") }
                (chunkStart, chunkEnd) = (0, n)
            }
        } else {
            let offset = sent
            return data.withUnsafeBytes { body(UnsafeRawBufferPointer(rebasing: $0[offset...])) }
        }
        let range = chunkStart..<chunkEnd
        return chunk.withUnsafeBytes { body(UnsafeRawBufferPointer(rebasing: $0[range])) }
    }

    /// Reads the stream's next bytes into `chunk`, framed when chunked.
    private mutating func readStream(_ stream: any BodySource) throws(SocketError) {
        // Room for the chunk-size line (at most 16 hex digits and CRLF) before the data, and the
        // CRLF after it.
        let headRoom = 18
        if chunk.isEmpty { chunk = [UInt8](repeating: 0, count: headRoom + Self.streamChunkSize + 2) }
        let wanted = chunked ? Self.streamChunkSize : min(Self.streamChunkSize, length - streamRead)
        let n = chunk.withUnsafeMutableBufferPointer { raw in
            stream.read(raw.baseAddress! + headRoom, maxLength: wanted)
        }
        if n == bodySourceNotReady {
            isWaitingForSource = true
            return
        }
        if n < 0 { throw SocketError(kind: .other, syscall: "read") }
        if !chunked {
            guard n > 0 else { throw SocketError(kind: .other, syscall: "read") }  // ended early
            streamRead += n
            (chunkStart, chunkEnd) = (headRoom, headRoom + n)
            if streamRead == length {
                // Exactly Content-Length bytes: anything after them is an error, not a next request.
                var probe: UInt8 = 0
                if stream.read(&probe, maxLength: 1) > 0 { throw SocketError(kind: .other, syscall: "read") }
            }
            return
        }
        if n == 0 {
            // The last chunk: the wire length is now known.
            let last: [UInt8] = Array("0\r\n\r\n".utf8)
            chunk.replaceSubrange(0..<last.count, with: last)
            (chunkStart, chunkEnd) = (0, last.count)
            (payloadBefore, payloadRange) = (streamRead, 0..<0)
            length = sent + last.count
            return
        }
        (payloadBefore, payloadRange) = (streamRead, headRoom..<(headRoom + n))
        streamRead += n
        let size = Array(String(n, radix: 16).utf8) + [0x0D, 0x0A]
        let start = headRoom - size.count
        chunk.replaceSubrange(start..<headRoom, with: size)
        chunk[headRoom + n] = 0x0D
        chunk[headRoom + n + 1] = 0x0A
        (chunkStart, chunkEnd) = (start, headRoom + n + 2)
    }

    /// Whether the next write has no body bytes because the stream has none yet: reads the
    /// stream if the last chunk is used up, as ``withNextBytes(_:)`` would.
    mutating func isPausedForSource() throws(SocketError) -> Bool {
        guard let stream, !isWaitingForSource else { return isWaitingForSource }
        if chunkStart == chunkEnd && sent < length { try readStream(stream) }
        return isWaitingForSource
    }

    /// The paused stream's ready handler ran: read it again on the next write.
    mutating func sourceBecameReady() { isWaitingForSource = false }

    /// Records that `count` bytes of the last ``withNextBytes(_:)`` were written.
    mutating func didWrite(_ count: Int) {
        sent += count
        if file != nil || stream != nil { chunkStart += count }
    }

    /// Closes a file or stream body.
    func close() {
        file?.close()
        stream?.close()
    }
}
