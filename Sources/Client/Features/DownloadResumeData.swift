#if FullFoundation
import Foundation
#else
import FoundationEssentials
#endif
import EventLoop
#if canImport(Glibc)
import Glibc
#endif

/// Lariat's resume data: what a cancelled or interrupted download needs to continue.
///
/// The blob a ``DownloadRequest`` hands out as ``DownloadRequest/resumeData`` (and under
/// ``DownloadResumeData/userInfoKey`` in a failure's `URLError`) is UTF-8 JSON, one object:
///
/// | key | value |
/// |---|---|
/// | `format` | `"org.lariat.resume-data"` |
/// | `version` | `1` (a blob of another version is refused) |
/// | `url`, `method`, `headers` | the request to send again (`headers` as `[[name, value]]`, without `Range`/`If-Range`) |
/// | `file` | the partial file's name, `Lariat_<UUID>.download`, inside `FileManager.temporaryDirectory` |
/// | `device`, `inode` | the partial file's identity when it was written |
/// | `offset` | how many bytes of the body the file holds |
/// | `etag`, `lastModified` | the validator sent as `If-Range` (a strong ETag is preferred) |
///
/// It is not Apple's format: resume data from URLSession does not load here, nor the reverse.
/// Input is untrusted: ``decode(_:temporaryDirectory:)`` refuses a blob that is too large, of
/// another version, names a file outside the temporary directory, or whose file is not the one
/// written (another inode, a symbolic link, another owner, shorter than `offset`). The file is
/// opened without following links and checked again after opening, so nothing outside the
/// temporary directory is read or written whatever the blob says.
struct DownloadResumeData: Codable, Equatable, Sendable {
    /// The `format` value.
    static let formatName = "org.lariat.resume-data"
    /// The only version this build reads and writes.
    static let currentVersion = 1
    /// The largest blob accepted (request headers included).
    static let maxEncodedSize = 256 * 1024
    /// Foundation's `NSURLSessionDownloadTaskResumeData`: where a failure's `URLError` carries it.
    static let userInfoKey = "NSURLSessionDownloadTaskResumeData"
    /// The partial files' name prefix and suffix (the middle is a UUID).
    static let filePrefix = "Lariat_"
    static let fileSuffix = ".download"

    var format = formatName
    var version = currentVersion
    var url: String
    var method: String
    var headers: [[String]]
    var file: String
    var device: UInt64
    var inode: UInt64
    var offset: Int
    var etag: String?
    var lastModified: String?

    /// The JSON blob.
    func encoded() -> Data {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        // Encoding plain strings and integers cannot fail.
        return (try? encoder.encode(self)) ?? Data()
    }

    /// Parses and checks a blob's fields (not its file: see ``openPartialFile(in:)``).
    /// - Throws: ``ResumeDataError``.
    static func decode(_ data: Data) throws(ResumeDataError) -> DownloadResumeData {
        guard data.count <= maxEncodedSize else { throw ResumeDataError(.tooLarge) }
        let value: DownloadResumeData
        do {
            value = try JSONDecoder().decode(DownloadResumeData.self, from: data)
        } catch {
            throw ResumeDataError(.malformed)
        }
        guard value.format == formatName else { throw ResumeDataError(.malformed) }
        guard value.version == currentVersion else { throw ResumeDataError(.unsupportedVersion) }
        guard isPartialFileName(value.file) else { throw ResumeDataError(.fileOutsideTemporaryDirectory) }
        guard value.offset >= 0, value.etag != nil || value.lastModified != nil else { throw ResumeDataError(.malformed) }
        guard let url = URL(string: value.url), let scheme = url.scheme?.lowercased(), scheme == "http" || scheme == "https",
              !value.method.isEmpty, value.headers.allSatisfy({ $0.count == 2 }) else { throw ResumeDataError(.malformed) }
        return value
    }

    /// Whether `name` is exactly `Lariat_<UUID>.download`: no separator, no `..`, nothing else.
    static func isPartialFileName(_ name: String) -> Bool {
        guard name.hasPrefix(filePrefix), name.hasSuffix(fileSuffix) else { return false }
        let middle = name.dropFirst(filePrefix.count).dropLast(fileSuffix.count)
        return UUID(uuidString: String(middle)) != nil && middle.count == 36
    }

    /// Opens the partial file in `directory` for appending, cut to ``offset`` bytes.
    /// - Throws: ``ResumeDataError`` when it is missing, a link, another file or too short.
    func openPartialFile(in directory: URL) throws(ResumeDataError) -> (File, URL) {
        let url = directory.appendingPathComponent(file)
        let opened: File
        do {
            opened = try File(path: url.path, mode: .appendExisting)  // O_NOFOLLOW: a link fails here
        } catch {
            throw ResumeDataError(.partialFileMissing)
        }
        do {
            let identity = try opened.identity()
            guard identity.isRegular, identity.device == device, identity.inode == inode,
                  identity.owner == currentUserID() else {
                opened.close()
                throw ResumeDataError(.partialFileChanged)
            }
            guard try opened.size() >= offset else {
                opened.close()
                throw ResumeDataError(.partialFileChanged)
            }
            try opened.truncate(to: offset)
        } catch let error as ResumeDataError {
            throw error
        } catch {
            opened.close()
            throw ResumeDataError(.partialFileMissing)
        }
        return (opened, url)
    }

    /// The request to send again, with `Range` and `If-Range` for the rest of the body, and
    /// `Accept-Encoding: identity`: the file holds the body after content decoding, so the offset
    /// counts identity bytes, and a range of a gzip representation would splice coded bytes
    /// after decoded ones (a validator of the coded variant then gets a full 200: start over).
    func resumedRequest() throws(ResumeDataError) -> URLRequest {
        guard let url = URL(string: url) else { throw ResumeDataError(.malformed) }
        var request = URLRequest(url: url)
        request.httpMethod = method
        var headers = HTTPHeaders()
        for pair in self.headers { headers.appendField(name: pair[0], value: pair[1]) }
        headers.remove(name: "Range")
        headers.remove(name: "If-Range")
        headers.update(name: "Range", value: "bytes=\(offset)-")
        headers.update(name: "Accept-Encoding", value: "identity")
        if let validator = etag ?? lastModified { headers.update(name: "If-Range", value: validator) }
        request.headers = headers
        return request
    }
}

/// Why resume data was refused; the underlying error of the request's
/// `AFError.createURLRequestFailed(error:)`, or of a `URLError` when the server's answer to the
/// resumed request does not fit.
public struct ResumeDataError: Error, Sendable, Hashable, CustomStringConvertible {
    /// What was wrong.
    public enum Kind: Sendable, Hashable {
        /// Not Lariat's resume data, or a field is missing or invalid.
        case malformed
        /// Larger than Lariat ever writes.
        case tooLarge
        /// Written by a version of Lariat this one does not read.
        case unsupportedVersion
        /// The file it names is not a partial download in the temporary directory.
        case fileOutsideTemporaryDirectory
        /// The partial file is gone.
        case partialFileMissing
        /// The partial file is not the one written (replaced, a link, shorter, another owner).
        case partialFileChanged
        /// The server answered `206` with a `Content-Range` that does not start at the offset.
        case contentRangeMismatch
        /// The server answered `206` for a resource whose validator changed.
        case validatorChanged
    }

    /// What was wrong.
    public let kind: Kind

    init(_ kind: Kind) { self.kind = kind }

    /// The kind, as text.
    public var description: String { "ResumeDataError(\(kind))" }
}

#if canImport(Glibc)
/// The effective user, who must own a partial file that is resumed.
private func currentUserID() -> UInt32 { geteuid() }
#else
private func currentUserID() -> UInt32 { 0 }
#endif
