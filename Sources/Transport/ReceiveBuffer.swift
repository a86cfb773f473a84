// The connection's receive buffer: bytes the parser has not consumed yet, at the front of one
// array that is reused for the connection's life (STYLE.md §4: a reader index and amortised
// compaction, never removeFirst per message).

/// Owned bytes with a reader and a writer index.
package struct ReceiveBuffer {
    private var storage: [UInt8]
    private var readerIndex = 0
    private var writerIndex = 0

    /// Creates a buffer; it grows when a message head needs more room.
    package init(capacity: Int) {
        storage = [UInt8](repeating: 0, count: capacity)
    }

    /// Bytes received and not consumed.
    package var readableCount: Int { writerIndex - readerIndex }

    /// Calls `body` with free space at the end, moving unread bytes to the front or growing first
    /// when less than `minimum` bytes are free; `body` returns how many bytes it wrote.
    ///
    /// With `growingTo`, a write that fills all the free space doubles the buffer for the next
    /// one, up to that size: a bulk body then moves in few large reads (measured on a 100 MiB
    /// download: 16 KiB reads cost one syscall and one handler call per 16 KiB), while a
    /// connection that only sees small responses keeps its small buffer.
    @discardableResult
    package mutating func write(minimum: Int = 4096, growingTo maximum: Int = 0, _ body: (UnsafeMutableRawBufferPointer) -> Int) -> Int {
        if storage.count - writerIndex < minimum {
            compact()
            if storage.count - writerIndex < minimum { storage.append(contentsOf: repeatElement(0, count: storage.count)) }
        }
        let start = writerIndex
        let free = storage.count - start
        let written = storage.withUnsafeMutableBytes { body(UnsafeMutableRawBufferPointer(rebasing: $0[start...])) }
        writerIndex += written
        if written == free && storage.count < maximum {
            storage.append(contentsOf: repeatElement(0, count: min(storage.count, maximum - storage.count)))
        }
        return written
    }

    /// Calls `body` with the unread bytes.
    package func withReadableBytes<R>(_ body: (UnsafeRawBufferPointer) throws -> R) rethrows -> R {
        try storage.withUnsafeBytes { try body(UnsafeRawBufferPointer(rebasing: $0[readerIndex..<writerIndex])) }
    }

    /// Marks `count` bytes as consumed.
    package mutating func consume(_ count: Int) {
        readerIndex += count
        if readerIndex == writerIndex {
            readerIndex = 0
            writerIndex = 0
        }
    }

    private mutating func compact() {
        guard readerIndex > 0 else { return }
        let count = writerIndex - readerIndex
        storage.withUnsafeMutableBytes { raw in
            raw.baseAddress!.copyMemory(from: raw.baseAddress! + readerIndex, byteCount: count)
        }
        readerIndex = 0
        writerIndex = count
    }
}
