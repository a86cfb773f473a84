#if FullFoundation
public import Foundation
#else
public import FoundationEssentials
#endif
import Synchronization
#if canImport(Glibc)
import Glibc  // POSIXError's codes (ENOENT) under MemberImportVisibility
#elseif canImport(Musl)
import Musl
#endif

/// Builds a `multipart/form-data` body (RFC 7578) from data, files and streams.
///
/// Parts are kept in order and read only when the body is encoded: ``encode()`` makes it in
/// memory, ``writeEncodedData(to:)`` streams it to a file (what Alamofire does above
/// ``encodingMemoryThreshold``). Problems with a file part are remembered when it is appended and
/// thrown by the next encode, as in Alamofire.
///
/// A form is encoded once: its parts are read as streams, as Alamofire's are, so a second
/// ``encode()`` or ``writeEncodedData(to:)`` fails with
/// ``AFError/MultipartEncodingFailureReason/inputStreamReadFailed(error:)`` (an
/// ``AFError/UnexpectedInputStreamLength`` of 0 bytes read) instead of producing another body.
/// An upload made from the form encodes it for each attempt it needs (retries, 307 and 308
/// redirects) from data and file parts; a stream part can be read only once.
///
/// ```swift
/// let form = MultipartFormData()
/// form.append(Data("Lariat".utf8), withName: "name")
/// form.append(URL(fileURLWithPath: "/tmp/photo.png"), withName: "photo")
/// let body = try form.encode()   // send with Content-Type: form.contentType
/// ```
///
/// Thread-safe. Streams appended here are read by encoding and must not be read elsewhere.
///
/// `open`, as in Alamofire. `@unchecked Sendable` because Swift 6 lets a non-final class be
/// `Sendable` only unchecked; safe because its mutable state is all inside one `Mutex` and the
/// rest is `let`s of `Sendable` types. A subclass that adds state must guard it itself.
open class MultipartFormData: @unchecked Sendable {
    /// Bodies larger than this many bytes (10 MB) should be written to a file rather than kept in memory.
    public static let encodingMemoryThreshold: UInt64 = 10_000_000

    /// The boundary line's token, random unless given.
    public let boundary: String

    /// The file manager used to inspect appended files.
    let fileManager: FileManager

    private struct State {
        var parts: [BodyPart] = []
        var contentType: String
        /// The first error from appending a file; thrown by the next encode.
        var appendError: AFError?
        /// Whether ``encode()`` or ``writeEncodedData(to:)`` already read the parts.
        var consumed = false
    }

    private let state: Mutex<State>

    /// Creates an empty form.
    ///
    /// - Parameters:
    ///   - fileManager: Used to check appended files. `.default` by default.
    ///   - boundary:    The boundary token. By default `lariat.boundary.` and 19 random hex digits:
    ///     35 characters, as long as Alamofire's `alamofire.boundary.` and 16, so an encoded form is
    ///     exactly as long as Alamofire's (its UploadTests check the byte count). A custom one must
    ///     not occur in any part's content.
    public init(fileManager: FileManager = .default, boundary: String? = nil) {
        let boundary = boundary ?? "lariat.boundary.\(randomHex())\(randomHex())\(randomHex().prefix(3))"
        self.boundary = boundary
        self.fileManager = fileManager
        state = Mutex(State(contentType: "multipart/form-data; boundary=\(boundary)"))
    }

    /// The `Content-Type` to send: `multipart/form-data; boundary=…` unless changed.
    public var contentType: String {
        get { state.withLock { $0.contentType } }
        set { state.withLock { $0.contentType = newValue } }
    }

    /// The total size in bytes of the parts' contents, without boundaries and part headers, as
    /// Alamofire defines it (compared with ``encodingMemoryThreshold``). The encoded body is
    /// longer: boundaries and part headers are added.
    public var contentLength: UInt64 {
        state.withLock { $0.parts }.reduce(0) { $0 + $1.length }
    }

    /// The exact size in bytes of the encoded body, boundaries and part headers included.
    package var encodedLength: UInt64 {
        let parts = state.withLock { $0.parts }
        guard !parts.isEmpty else { return 0 }
        let framedParts = parts.enumerated().reduce(UInt64(0)) { total, element in
            let (index, part) = element
            return total + UInt64(openingLine(first: index == 0).utf8.count) + UInt64(part.encodedHeaders.count) + part.length
        }
        return framedParts + UInt64(("\r\n" + closingLine).utf8.count)
    }

    // MARK: Appending

    /// Appends bytes as a part.
    ///
    /// - Parameters:
    ///   - data:     The content.
    ///   - name:     The form field name.
    ///   - fileName: A file name to send with it; `nil` (the default) sends none.
    ///   - mimeType: The part's `Content-Type`; `nil` (the default) sends none.
    public func append(_ data: Data, withName name: String, fileName: String? = nil, mimeType: String? = nil) {
        let headers = contentHeaders(name: name, fileName: fileName, mimeType: mimeType)
        append(BodyPart(headers: headers, content: .data(data), length: UInt64(data.count)))
    }

    /// Appends a file as a part, named and typed after the file.
    ///
    /// The file name is the URL's last path component and the MIME type is guessed from its
    /// extension (`application/octet-stream` if unknown). Errors are reported by the next encode.
    ///
    /// - Parameters:
    ///   - fileURL: A `file:` URL of a readable regular file with an extension.
    ///   - name:    The form field name.
    public func append(_ fileURL: URL, withName name: String) {
        let fileName = fileURL.lastPathComponent
        let pathExtension = fileURL.pathExtension
        guard !fileName.isEmpty, !pathExtension.isEmpty else {
            record(.multipartEncodingFailed(reason: .bodyPartFilenameInvalid(in: fileURL)))
            return
        }
        append(fileURL, withName: name, fileName: fileName, mimeType: MultipartFormData.mimeType(forPathExtension: pathExtension))
    }

    /// Appends a file as a part with the given file name and MIME type.
    ///
    /// Errors (not a file URL, missing, a directory, unknown size) are reported by the next encode.
    ///
    /// - Parameters:
    ///   - fileURL:  A `file:` URL of a readable regular file.
    ///   - name:     The form field name.
    ///   - fileName: The file name to send.
    ///   - mimeType: The part's `Content-Type`.
    public func append(_ fileURL: URL, withName name: String, fileName: String, mimeType: String) {
        let headers = contentHeaders(name: name, fileName: fileName, mimeType: mimeType)
        guard fileURL.isFileURL else {
            record(.multipartEncodingFailed(reason: .bodyPartURLInvalid(url: fileURL)))
            return
        }
        var isDirectory = false
        guard fileManager.fileExists(atPath: fileURL.path, isDirectory: &isDirectory) else {
            // With the reason (ENOENT), as Alamofire reports it with the error its reachability check throws.
            record(.multipartEncodingFailed(reason: .bodyPartFileNotReachableWithError(
                atURL: fileURL, error: POSIXError(.ENOENT)
            )))
            return
        }
        guard !isDirectory else {
            record(.multipartEncodingFailed(reason: .bodyPartFileIsDirectory(at: fileURL)))
            return
        }
        let size: UInt64
        do {
            guard let bytes = fileSize(try fileManager.attributesOfItem(atPath: fileURL.path)[.size]) else {
                record(.multipartEncodingFailed(reason: .bodyPartFileSizeNotAvailable(at: fileURL)))
                return
            }
            size = bytes
        } catch {
            record(.multipartEncodingFailed(reason: .bodyPartFileSizeQueryFailedWithError(forURL: fileURL, error: error)))
            return
        }
        append(BodyPart(headers: headers, content: .file(fileURL), length: size))
    }

    /// Appends a stream as a part with a file name and MIME type.
    ///
    /// - Parameters:
    ///   - stream:   The content; exactly `length` bytes are read when encoding.
    ///   - length:   The number of bytes the stream yields.
    ///   - name:     The form field name.
    ///   - fileName: The file name to send.
    ///   - mimeType: The part's `Content-Type`.
    public func append(_ stream: InputStream, withLength length: UInt64, name: String, fileName: String, mimeType: String) {
        append(stream, withLength: length, headers: contentHeaders(name: name, fileName: fileName, mimeType: mimeType))
    }

    /// Appends a stream as a part with explicit part headers.
    ///
    /// - Parameters:
    ///   - stream:  The content; exactly `length` bytes are read when encoding.
    ///   - length:  The number of bytes the stream yields.
    ///   - headers: The part's header fields, written in order (normally `Content-Disposition` first).
    public func append(_ stream: InputStream, withLength length: UInt64, headers: HTTPHeaders) {
        append(BodyPart(headers: headers, content: .stream(BodyStream(stream)), length: length))
    }

    // MARK: Encoding

    /// Encodes the whole body in memory.
    ///
    /// - Returns: The body bytes; empty if nothing was appended.
    /// - Throws: The first error recorded while appending, or
    ///   ``AFError/MultipartEncodingFailureReason/inputStreamReadFailed(error:)`` if a part yields
    ///   fewer bytes than declared or cannot be read (a longer stream is cut at its declared length).
    public func encode() throws -> Data {
        try encode(consuming: true)
    }

    /// Encodes the body in memory; `consuming: false` (uploads) neither checks nor marks the
    /// parts as read, so data and file parts can be sent again on a retry.
    func encode(consuming: Bool) throws -> Data {
        var body = Data()
        try encodeParts(consuming: consuming) { body.append($0) }
        return body
    }

    /// Streams the encoded body into a new file.
    ///
    /// - Parameter fileURL: A `file:` URL where no file exists yet.
    /// - Throws: The errors of ``encode()``, plus `.outputStreamURLInvalid` (not a file URL),
    ///   `.outputStreamFileAlreadyExists`, `.outputStreamCreationFailed` or `.outputStreamWriteFailed`.
    public func writeEncodedData(to fileURL: URL) throws {
        try writeEncodedData(to: fileURL, consuming: true)
    }

    /// Streams the encoded body into a new file; `consuming` as in ``encode(consuming:)``.
    func writeEncodedData(to fileURL: URL, consuming: Bool) throws {
        guard fileURL.isFileURL else {
            throw AFError.multipartEncodingFailed(reason: .outputStreamURLInvalid(url: fileURL))
        }
        guard !fileManager.fileExists(atPath: fileURL.path) else {
            throw AFError.multipartEncodingFailed(reason: .outputStreamFileAlreadyExists(at: fileURL))
        }
        guard let writer = FileWriter(creating: fileURL.path) else {
            throw AFError.multipartEncodingFailed(reason: .outputStreamCreationFailed(for: fileURL))
        }
        defer { writer.close() }
        try encodeParts(consuming: consuming) { chunk in
            if let error = writer.write(chunk) {
                throw AFError.multipartEncodingFailed(reason: .outputStreamWriteFailed(error: error))
            }
        }
    }

    // MARK: Internals

    private var closingLine: String { "--\(boundary)--\r\n" }

    /// The boundary line before a part; after the first part it also ends the previous part's content.
    private func openingLine(first: Bool) -> String {
        (first ? "" : "\r\n") + "--\(boundary)\r\n"
    }

    private func append(_ part: BodyPart) {
        state.withLock { $0.parts.append(part) }
    }

    private func record(_ error: AFError) {
        state.withLock { state in
            if state.appendError == nil { state.appendError = error }
        }
    }

    /// Emits the body in order: for each part its boundary line, headers and content, then the
    /// closing boundary (RFC 2046 §5.1.1). Consuming, a form already read fails at its first
    /// part with content, which an earlier encode read to its end.
    private func encodeParts(consuming: Bool, _ emit: (Data) throws -> Void) throws {
        let (parts, appendError, consumed) = state.withLock { state in
            defer { if consuming { state.consumed = true } }
            return (state.parts, state.appendError, consuming && state.consumed)
        }
        if let appendError { throw appendError }
        guard !parts.isEmpty else { return }
        if consumed, let read = parts.first(where: { $0.length > 0 }) {
            throw AFError.multipartEncodingFailed(reason: .inputStreamReadFailed(
                error: AFError.UnexpectedInputStreamLength(bytesExpected: read.length, bytesRead: 0)
            ))
        }
        for (index, part) in parts.enumerated() {
            try emit(Data(openingLine(first: index == 0).utf8))
            try emit(part.encodedHeaders)
            try part.emitContent(emit)
        }
        try emit(Data(("\r\n" + closingLine).utf8))
    }

    private func contentHeaders(name: String, fileName: String?, mimeType: String?) -> HTTPHeaders {
        Self.partHeaders(name: name, fileName: fileName, mimeType: mimeType)
    }

    /// How a part's name and file name are escaped inside their quotes.
    package enum NameEscaping: Sendable {
        /// `"` → `%22`, CR → `%0D`, LF → `%0A` (browsers, Alamofire, curl by default).
        case percent
        /// `\` → `\\` and `"` → `\"` (curl's `--form-escape`); CR and LF still as `%0D` and
        /// `%0A`, never raw, so a name cannot end the field line.
        case backslash
    }

    /// A part's `Content-Disposition` (name and file name escaped by `escaping`) and
    /// `Content-Type` fields, for ``append(_:withLength:headers:)`` callers such as fetch's `-F`.
    package static func partHeaders(name: String, fileName: String?, mimeType: String?, escaping: NameEscaping = .percent) -> HTTPHeaders {
        let quote = { (value: String) in Self.escaped(value, escaping) }
        var disposition = "form-data; name=\"\(quote(name))\""
        if let fileName { disposition += "; filename=\"\(quote(fileName))\"" }
        var headers: HTTPHeaders = [.contentDisposition(disposition)]
        if let mimeType { headers.add(.contentType(mimeType)) }
        return headers
    }

    /// Escapes a name for a quoted `Content-Disposition` parameter the way browsers do (WHATWG HTML
    /// "multipart/form-data encoding algorithm"): `"` → `%22`, CR → `%0D`, LF → `%0A`.
    static func quoted(_ value: String) -> String { escaped(value, .percent) }

    /// `value` with `"` (and, for ``NameEscaping/backslash``, `\`) escaped; CR and LF always
    /// percent-encoded, so a name can never end its field line.
    private static func escaped(_ value: String, _ escaping: NameEscaping) -> String {
        var result = ""
        for character in value {
            switch (character, escaping) {
            case ("\"", .percent): result += "%22"
            case ("\"", .backslash): result += "\\\""
            case ("\\", .backslash): result += "\\\\"
            case ("\r", _): result += "%0D"
            case ("\n", _): result += "%0A"
            case ("\r\n", _): result += "%0D%0A"
            default: result.append(character)
            }
        }
        return result
    }
}

/// Eight random lower-case hex digits.
private func randomHex() -> String {
    let hex = String(UInt32.random(in: 0...UInt32.max), radix: 16)
    return String(repeating: "0", count: 8 - hex.count) + hex
}

/// A file size from `FileManager` attributes: `UInt` from FoundationEssentials, `NSNumber` (which
/// casts to `UInt64`) from Foundation.
private func fileSize(_ value: Any?) -> UInt64? {
    switch value {
    case let size as UInt: UInt64(size)
    case let size as UInt64: size
    case let size as Int where size >= 0: UInt64(size)
    case let size as Int64 where size >= 0: UInt64(size)
    default: nil
    }
}
