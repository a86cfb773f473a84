// The request body being written on a connection: the caller's bytes in memory, or a file read
// from disk one chunk at a time, so a 100 MiB upload holds 256 KiB of it, not 100 MiB.

import FoundationEssentials
import EventLoop

/// A request body as the transport receives it.
enum RequestBody: Sendable {
    /// Bytes in memory (`URLRequest.httpBody`, an `upload(Data)`).
    case data(Data)
    /// A file sent from its start, `length` bytes (its size when the request was made).
    case file(path: String, length: Int)

    /// The number of bytes the body frames as its `Content-Length`.
    var count: Int {
        switch self {
        case .data(let data): data.count
        case .file(_, let length): length
        }
    }
}

/// Hands out the next bytes to write and tracks what was sent.
struct OutgoingBody {
    /// How much of a file is read ahead: large enough to fill the socket buffer in one writev.
    static let fileChunkSize = 256 * 1024

    /// In-memory bytes; empty for a file body.
    private let data: Data
    /// The file of a file body, read into `chunk[chunkStart..<chunkEnd]` as the socket drains.
    private let file: File?
    private var chunk: [UInt8] = []
    private var chunkStart = 0
    private var chunkEnd = 0
    /// The body's length in bytes (what the request frames as Content-Length).
    let length: Int
    /// Bytes handed to the socket (or TLS) so far.
    private(set) var sent = 0

    /// An empty body.
    init() {
        data = Data()
        file = nil
        length = 0
    }

    /// Prepares `body` for writing; a file is opened here.
    /// - Throws: `SocketError` from `open` when the file cannot be read.
    init(_ body: RequestBody?) throws(SocketError) {
        switch body {
        case nil:
            data = Data()
            file = nil
            length = 0
        case .data(let bytes):
            data = bytes
            file = nil
            length = bytes.count
        case .file(let path, let length):
            data = Data()
            file = try File(path: path, mode: .read)
            self.length = length
        }
    }

    /// Whether every byte was sent.
    var isComplete: Bool { sent == length }

    /// Calls `body` with the bytes to write next: empty once everything was sent. A file is read
    /// when the previous chunk is used up.
    /// - Throws: `SocketError` when the file cannot be read, or `.other` with syscall `"read"`
    ///   and errno 0 when it ends before `length` bytes (it shrank after the request was made).
    mutating func withNextBytes<R>(_ body: (UnsafeRawBufferPointer) -> R) throws(SocketError) -> R {
        guard let file else {
            let offset = sent
            return data.withUnsafeBytes { body(UnsafeRawBufferPointer(rebasing: $0[offset...])) }
        }
        if chunkStart == chunkEnd && sent < length {
            if chunk.isEmpty { chunk = [UInt8](repeating: 0, count: Self.fileChunkSize) }
            let wanted = min(chunk.count, length - sent)
            let n = try chunk.withUnsafeMutableBytes { raw in
                Result { () throws(SocketError) in try file.read(into: UnsafeMutableRawBufferPointer(rebasing: raw[0..<wanted])) }
            }.get()
            guard n > 0 else { throw SocketError(kind: .other, syscall: "read") }
            (chunkStart, chunkEnd) = (0, n)
        }
        let range = chunkStart..<chunkEnd
        return chunk.withUnsafeBytes { body(UnsafeRawBufferPointer(rebasing: $0[range])) }
    }

    /// Records that `count` bytes of the last ``withNextBytes(_:)`` were written.
    mutating func didWrite(_ count: Int) {
        sent += count
        if file != nil { chunkStart += count }
    }

    /// Closes a file body.
    func close() {
        file?.close()
    }
}
