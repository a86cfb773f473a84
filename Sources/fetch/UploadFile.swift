// -T/--upload-file: curl's PUT of a file or of standard input.
//
// The URL rule is curl's: a URL whose path is empty or ends in `/` gets the file's name appended
// (not for `-`). The method is PUT unless -X names another. A file goes out from disk with its
// size as Content-Length; standard input that is a regular file likewise; a pipe or terminal,
// whose length is unknown, goes out with `Transfer-Encoding: chunked` as it is read.
import Client
import FoundationEssentials
#if canImport(Glibc)
import Glibc
#endif
import Transport

/// What `-T` uploads.
enum UploadFile {
    /// `request` as `-T path` changes it: the method, the URL, and curl 7.88's
    /// `Expect: 100-continue` (which it sends for every upload unless `-H 'Expect:'` says
    /// otherwise; Client then holds the body until the server's 100, or for one second).
    static func apply(_ options: FetchOptions, to request: PlannedRequest) -> PlannedRequest {
        guard let path = options.uploadFile else { return request }
        var request = request
        request.method = options.method ?? "PUT"
        request.url = url(request.url, uploading: path)
        let userSetExpect = options.headerLines.contains { line in
            line.lowercased().hasPrefix("expect:") || line.lowercased().hasPrefix("expect;")
        }
        // curl sends Expect: 100-continue on HTTP/1.1 only.
        if !userSetExpect && !options.http10 { request.headers.append(HeaderField(name: "Expect", value: "100-continue")) }
        return request
    }

    /// curl's rule: the file's base name appended when the URL has no file part.
    static func url(_ url: String, uploading path: String) -> String {
        guard path != "-" else { return url }
        let name = path.split(separator: "/").last.map(String.init) ?? path
        var rest = Substring(url)
        var prefix = ""
        if let scheme = rest.firstOccurrence(of: "://") {
            prefix = String(rest[..<scheme.upperBound])
            rest = rest[scheme.upperBound...]
        }
        let end = rest.firstIndex { $0 == "?" || $0 == "#" } ?? rest.endIndex
        let (authorityAndPath, suffix) = (rest[..<end], rest[end...])
        guard let slash = authorityAndPath.firstIndex(of: "/") else {
            return prefix + authorityAndPath + "/" + name + suffix
        }
        guard authorityAndPath[slash...].hasSuffix("/") else { return url }
        return prefix + authorityAndPath + name + suffix
    }

    /// Attaches the body to `stream`; returns a failure (curl's status 26) when the file cannot
    /// be read.
    static func attach(_ path: String, crlf: Bool = false, http10: Bool = false, to stream: DataStreamRequest) -> TransferError? {
        let failure = TransferError(status: 26, message: "Failed to open/read local data from file/application")
        if http10 && path == "-" {
            // Standard input of unknown length would go chunked, which HTTP/1.0 lacks: curl's 25.
            var info = stat()
            if fstat(0, &info) != 0 || (info.st_mode & S_IFMT) != S_IFREG {
                return TransferError(status: 25, message: "Chunky upload is not supported by HTTP 1.0")
            }
        }
        if crlf { return attachConverted(path, to: stream, failure: failure) }
        if path == "-" {
            var info = stat()
            if fstat(0, &info) == 0 && (info.st_mode & S_IFMT) == S_IFREG {
                stream.uploadFile(atPath: "/dev/stdin", length: Int(info.st_size))
            } else {
                stream.uploadStandardInput()
            }
            return nil
        }
        var info = stat()
        guard stat(path, &info) == 0, (info.st_mode & S_IFMT) == S_IFREG, access(path, R_OK) == 0 else { return failure }
        stream.uploadFile(atPath: path, length: Int(info.st_size))
        return nil
    }

    /// `--crlf`: the file (or standard input, chunked when it is not a regular file) with each
    /// LF sent as CRLF (CRLFUpload.swift).
    private static func attachConverted(_ path: String, to stream: DataStreamRequest, failure: TransferError) -> TransferError? {
        var info = stat()
        let file = path == "-" ? "/dev/stdin" : path
        let isRegular = (path == "-" ? fstat(0, &info) : stat(path, &info)) == 0 && (info.st_mode & S_IFMT) == S_IFREG
        if path == "-" && !isRegular {
            stream.uploadBody(from: CRLFBodySource(path: path), length: nil)
            return nil
        }
        guard isRegular, access(file, R_OK) == 0, let length = CRLFBodySource.convertedLength(ofFileAt: file) else { return failure }
        stream.uploadBody(from: CRLFBodySource(path: path), length: length)
        return nil
    }
}
