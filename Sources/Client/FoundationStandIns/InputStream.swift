// Client's own InputStream, compiled only without the FullFoundation trait (Foundation's is used
// otherwise). URLRequest.httpBodyStream holds one; the transport reads request bodies from it.
#if !FullFoundation
public import FoundationEssentials
import Synchronization
#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// Namespace for stream types shared with Foundation's `Stream` class hierarchy.
public enum Stream {
    /// The life-cycle state of a stream, with Foundation's raw values.
    public enum Status: UInt, Sendable {
        /// Created, not yet opened.
        case notOpen = 0
        /// Being opened.
        case opening = 1
        /// Open and idle.
        case open = 2
        /// A read is in progress.
        case reading = 3
        /// A write is in progress.
        case writing = 4
        /// Every byte has been read.
        case atEnd = 5
        /// Closed by ``InputStream/close()``.
        case closed = 6
        /// Failed; see ``InputStream/streamError``.
        case error = 7
    }
}

/// A readable stream of bytes from memory or a file.
///
/// A stand-in for Foundation's `InputStream` in builds without full Foundation: synchronous reads
/// only (no run-loop scheduling or delegates). All members are thread-safe; reads are serialized.
/// A file stream opens its file in ``open()`` and closes it in ``close()`` or when released.
public final class InputStream: Sendable {
    fileprivate enum Source {
        /// Bytes in memory and the offset of the next unread byte.
        case data(Data, offset: Int)
        /// A file path, and its descriptor while open.
        case file(path: String, descriptor: Int32?)
    }

    fileprivate struct State {
        var source: Source
        var status: Stream.Status = .notOpen
        var error: (any Error)?
    }

    private let state: Mutex<State>

    /// Creates a stream over bytes in memory.
    ///
    /// - Parameter data: The bytes to read.
    public init(data: Data) {
        state = Mutex(State(source: .data(data, offset: 0)))
    }

    /// Creates a stream that reads a file.
    ///
    /// The file is opened by ``open()``; a missing or unreadable file is reported then, through
    /// ``streamStatus`` `.error` and ``streamError``.
    ///
    /// - Parameter path: The file's path. An empty path gives `nil`.
    public init?(fileAtPath path: String) {
        guard !path.isEmpty else { return nil }
        state = Mutex(State(source: .file(path: path, descriptor: nil)))
    }

    /// Creates a stream that reads the file at a `file:` URL.
    ///
    /// - Parameter url: The file URL; any other scheme gives `nil`.
    public convenience init?(url: URL) {
        guard url.isFileURL else { return nil }
        self.init(fileAtPath: url.path)
    }

    deinit {
        state.withLock { state in
            if case let .file(_, descriptor?) = state.source {
                closeDescriptor(descriptor)
            }
        }
    }

    /// The stream's state.
    public var streamStatus: Stream.Status {
        state.withLock { $0.status }
    }

    /// Why the stream failed, when ``streamStatus`` is `.error`: a ``URLError`` whose underlying
    /// error is the `POSIXError` from the failing system call.
    public var streamError: (any Error)? {
        state.withLock { $0.error }
    }

    /// Whether a read may return bytes. For files this stays `true` until a read reaches the end.
    public var hasBytesAvailable: Bool {
        state.withLock { state in
            switch (state.status, state.source) {
            case (.open, let .data(data, offset)): offset < data.count
            case (.open, .file): true
            default: false
            }
        }
    }

    /// Opens the stream. Only the first call on a new stream has an effect.
    public func open() {
        state.withLock { state in
            guard state.status == .notOpen else { return }
            guard case let .file(path, _) = state.source else {
                state.status = .open
                return
            }
            let descriptor = openForReading(path)
            guard descriptor >= 0 else {
                state.fail(errno: errno, path: path)
                return
            }
            state.source = .file(path: path, descriptor: descriptor)
            state.status = .open
        }
    }

    /// Reads up to `len` bytes.
    ///
    /// - Parameters:
    ///   - buffer: Where to put the bytes; must have room for `len` bytes.
    ///   - len:    The most bytes to read.
    /// - Returns: The number of bytes read; `0` at the end (``streamStatus`` becomes `.atEnd`);
    ///   `-1` if the stream is not open or the read failed (see ``streamError``).
    public func read(_ buffer: UnsafeMutablePointer<UInt8>, maxLength len: Int) -> Int {
        state.withLock { state in
            guard state.status == .open else {
                return state.status == .atEnd ? 0 : -1
            }
            guard len > 0 else { return 0 }
            switch state.source {
            case let .data(data, offset):
                let count = Swift.min(len, data.count - offset)
                if count == 0 {
                    state.status = .atEnd
                    return 0
                }
                data.copyBytes(to: buffer, from: (data.startIndex + offset)..<(data.startIndex + offset + count))
                state.source = .data(data, offset: offset + count)
                return count
            case let .file(path, descriptor):
                guard let descriptor else { return -1 }
                var count: Int
                repeat {
                    count = readDescriptor(descriptor, buffer, len)
                } while count < 0 && errno == EINTR
                if count < 0 {
                    state.fail(errno: errno, path: path)
                    return -1
                }
                if count == 0 { state.status = .atEnd }
                return count
            }
        }
    }

    /// Closes the stream and releases its file, if any. Further reads return `-1`.
    public func close() {
        state.withLock { state in
            if case let .file(path, descriptor?) = state.source {
                closeDescriptor(descriptor)
                state.source = .file(path: path, descriptor: nil)
            }
            if state.status != .error { state.status = .closed }
        }
    }
}

// File-scope wrappers: inside InputStream, `open`, `read` and `close` name the stream's own methods.
private func openForReading(_ path: String) -> Int32 { open(path, O_RDONLY | O_CLOEXEC) }
private func readDescriptor(_ fd: Int32, _ buffer: UnsafeMutablePointer<UInt8>, _ count: Int) -> Int { read(fd, buffer, count) }
private func closeDescriptor(_ fd: Int32) { _ = close(fd) }

extension InputStream.State {
    /// Records a failed system call: status `.error`, and a URLError whose code names the
    /// file problem (missing, directory, permission) with the errno as its underlying error.
    fileprivate mutating func fail(errno code: Int32, path: String) {
        let urlCode: URLError.Code =
            switch code {
            case ENOENT: .fileDoesNotExist
            case EISDIR: .fileIsDirectory
            case EACCES, EPERM: .noPermissionsToReadFile
            default: .cannotOpenFile
            }
        let underlying = POSIXError(POSIXError.Code(rawValue: code) ?? .EIO)
        error = URLError.lariat(urlCode, underlying: underlying, url: URL(fileURLWithPath: path))
        status = .error
    }
}
#endif
