#if FullFoundation
import Foundation
#else
import FoundationEssentials
#endif
#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// One part of a multipart body: its header fields and where its content comes from.
struct BodyPart: Sendable {
    /// Where the content is read from when encoding.
    enum Content: Sendable {
        /// Bytes in memory.
        case data(Data)
        /// A file, opened as a stream when encoding.
        case file(URL)
        /// A caller's stream, read once.
        case stream(BodyStream)
    }

    let headers: HTTPHeaders
    let content: Content
    /// The number of content bytes the part declares.
    let length: UInt64

    /// `Name: value` lines followed by the blank line that ends the part's header.
    ///
    /// CR and LF inside a name or value are written as `%0D` and `%0A` (the escaping names already
    /// get), so a MIME type or custom header cannot add a header line or end the section early
    /// (found by the `multipart` fuzzer: Fuzz/FailCases/multipart-crlf-in-mime-type).
    var encodedHeaders: Data {
        func escaped(_ text: String) -> String {
            guard text.utf8.contains(where: { $0 == 0x0D || $0 == 0x0A }) else { return text }
            return String(decoding: text.utf8.flatMap { byte -> [UInt8] in
                switch byte {
                case 0x0D: return Array("%0D".utf8)
                case 0x0A: return Array("%0A".utf8)
                default: return [byte]
                }
            }, as: UTF8.self)
        }
        return Data((headers.map { "\(escaped($0.name)): \(escaped($0.value))\r\n" }.joined() + "\r\n").utf8)
    }

    /// Reads the content in chunks of at most ``chunkSize`` bytes.
    ///
    /// - Throws: `.bodyPartInputStreamCreationFailed` if a file cannot be opened as a stream;
    ///   `.inputStreamReadFailed` if reading fails or yields fewer than ``length`` bytes.
    func emitContent(_ emit: (Data) throws -> Void) throws {
        let stream: InputStream
        switch content {
        case let .data(data):
            try emit(data)
            return
        case let .file(url):
            guard let fileStream = InputStream(url: url) else {
                throw AFError.multipartEncodingFailed(reason: .bodyPartInputStreamCreationFailed(for: url))
            }
            stream = fileStream
        case let .stream(box):
            stream = box.stream
        }
        stream.open()
        defer { stream.close() }
        var buffer = [UInt8](repeating: 0, count: BodyPart.chunkSize)
        var total: UInt64 = 0
        while total < length {
            let wanted = Int(min(UInt64(buffer.count), length - total))
            let count = stream.read(&buffer, maxLength: wanted)
            if count < 0 {
                let error: any Error = stream.streamError ?? AFError.UnexpectedInputStreamLength(bytesExpected: length, bytesRead: total)
                throw AFError.multipartEncodingFailed(reason: .inputStreamReadFailed(error: error))
            }
            if count == 0 { break }
            total += UInt64(count)
            try emit(Data(buffer[..<count]))
        }
        // Fewer bytes than declared would corrupt the framing. Bytes past the declared length are
        // left unread: the part is what its length says, as Alamofire (which documents the
        // length as the part's size and writes just that prefix of a longer stream).
        if total < length {
            throw AFError.multipartEncodingFailed(reason: .inputStreamReadFailed(
                error: AFError.UnexpectedInputStreamLength(bytesExpected: length, bytesRead: total)
            ))
        }
    }

    /// Bytes read per stream read: 1 KiB, as Alamofire's streamBufferSize.
    static let chunkSize = 1024
}

extension MultipartFormData {
    /// Guesses a MIME type from a file extension; `application/octet-stream` when unknown.
    ///
    /// Apple platforms ask the system's type database; Linux has no such service, so this is a
    /// fixed table of common web types.
    ///
    /// - Parameter pathExtension: The extension without a dot, any case.
    /// - Returns: The MIME type.
    static func mimeType(forPathExtension pathExtension: String) -> String {
        let types: [String: String] = [
            "txt": "text/plain", "html": "text/html", "htm": "text/html", "css": "text/css", "csv": "text/csv",
            "js": "text/javascript", "json": "application/json", "xml": "application/xml", "pdf": "application/pdf",
            "zip": "application/zip", "gz": "application/gzip", "png": "image/png", "jpg": "image/jpeg",
            "jpeg": "image/jpeg", "gif": "image/gif", "webp": "image/webp", "svg": "image/svg+xml",
            "heic": "image/heic", "mp3": "audio/mpeg", "wav": "audio/wav", "mp4": "video/mp4", "mov": "video/quicktime",
        ]
        return types[pathExtension.lowercased()] ?? "application/octet-stream"
    }
}

/// Appends bytes to a newly created file with POSIX calls (FoundationEssentials has no output stream).
final class FileWriter {
    private var descriptor: Int32

    /// Creates the file, failing if it exists.
    init?(creating path: String) {
        descriptor = openNew(path)
        if descriptor < 0 { return nil }
    }

    /// Writes all of `data`; returns the error if a write fails.
    func write(_ data: Data) -> (any Error)? {
        data.withUnsafeBytes { buffer -> (any Error)? in
            var offset = 0
            while offset < buffer.count {
                let written = writeDescriptor(descriptor, buffer.baseAddress! + offset, buffer.count - offset)
                if written < 0 {
                    if errno == EINTR { continue }
                    return POSIXError(POSIXError.Code(rawValue: errno) ?? .EIO)
                }
                offset += written
            }
            return nil
        }
    }

    /// Closes the file.
    func close() {
        if descriptor >= 0 {
            closeDescriptor(descriptor)
            descriptor = -1
        }
    }

    deinit { close() }
}

// File-scope wrappers: inside FileWriter, `write` and `close` name its own methods.
// 0600 and no symlink followed: the body may hold credentials, and its directory may be shared.
private func openNew(_ path: String) -> Int32 { open(path, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0o600) }
private func writeDescriptor(_ fd: Int32, _ bytes: UnsafeRawPointer, _ count: Int) -> Int { write(fd, bytes, count) }
private func closeDescriptor(_ fd: Int32) { _ = close(fd) }
