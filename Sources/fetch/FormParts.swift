// curl's -F and --form-string, read into Client's MultipartFormData: fetch parses the
// arguments (curl 7.88's tool_formparse rules) and MultipartFormData does all the encoding, so
// the boundary framing and the escaping of names and file names (`"` → %22, CR → %0D, LF → %0A,
// as curl writes them) live in one place. A body larger than the encoder's memory threshold is
// written to a private temporary file and streamed from there.
import Client
import FoundationEssentials
#if FullFoundation
import Foundation  // InputStream is Foundation's own in the default build; Client's without the trait
#endif
#if canImport(Glibc)
import Glibc
#endif

/// One `-F` or `--form-string` argument, as given.
struct FormArgument: Equatable {
    /// `name=value`, `name=@file[;type=…][;filename=…]`, `name=<file[;type=…]`.
    var text: String
    /// `--form-string`: the value is taken as written (no `@`, `<` or `;type=`).
    var literal = false
}

/// The multipart body of a run's `-F` parts.
enum FormParts {
    /// File parts at most this large are read into memory; larger ones are streamed from disk.
    static let inlineLimit = 64 * 1024

    /// curl's boundary: 24 dashes and 16 lower-case hex digits, zero-padded (dropping the
    /// leading zeros made one run in sixteen one byte shorter per boundary: issue 23).
    static func curlBoundary() -> String {
        let hex = String(UInt64.random(in: 0...UInt64.max), radix: 16)
        return String(repeating: "-", count: 24) + String(repeating: "0", count: 16 - hex.count) + hex
    }

    /// One parsed part.
    struct Part: Equatable {
        /// The field name.
        var name: String
        /// Where the content comes from.
        var content: Content
        /// `filename=` in Content-Disposition (set for `@file` parts).
        var filename: String?
        /// The part's Content-Type, if any.
        var contentType: String?

        /// A part's content.
        enum Content: Equatable {
            /// Bytes in memory.
            case data(Data)
            /// A regular file streamed from disk when the body is encoded.
            case file(String)
        }
    }

    /// Parses one argument; file contents are read through `body` (`read`, `regularFileSize`).
    static func part(_ argument: FormArgument, body: BodyBuilder) throws(FormError) -> Part {
        let spec = argument.text
        guard let equals = spec.firstIndex(of: "=") else { throw .malformed(spec) }
        let name = String(spec[..<equals])
        let rest = String(spec[spec.index(after: equals)...])
        if argument.literal { return Part(name: name, content: .data(Data(rest.utf8))) }
        var fields = rest.split(separator: ";", omittingEmptySubsequences: false).map(String.init)
        let value = fields.removeFirst()
        var type: String?
        var filename: String?
        for field in fields {
            let trimmed = field.drop(while: { $0 == " " })
            if trimmed.hasPrefix("type=") { type = String(trimmed.dropFirst(5)) }
            else if trimmed.hasPrefix("filename=") { filename = String(trimmed.dropFirst(9)) }
        }
        if value.hasPrefix("@") {
            let path = String(value.dropFirst())
            let base = path.split(separator: "/").last.map(String.init) ?? path
            return Part(name: name, content: try content(of: path, body: body), filename: filename ?? base,
                        contentType: type ?? guessType(base))
        }
        if value.hasPrefix("<") {
            let path = String(value.dropFirst())
            return Part(name: name, content: try content(of: path, body: body), filename: filename, contentType: type)
        }
        return Part(name: name, content: .data(Data(value.utf8)), filename: filename, contentType: type)
    }

    /// A file's content: streamed when it is a large regular file, else read now.
    private static func content(of path: String, body: BodyBuilder) throws(FormError) -> Part.Content {
        if path != "-", let size = body.regularFileSize(path), size > inlineLimit { return .file(path) }
        guard let data = body.read(path) else { throw .unreadable(path) }
        return .data(data)
    }

    /// The form of `arguments` with `boundary`.
    /// - Parameter escaping: `--form-escape`'s backslashes, or the default percent-encoding.
    static func form(
        _ arguments: [FormArgument], boundary: String, body: BodyBuilder, escaping: MultipartFormData.NameEscaping = .percent
    ) throws(FormError) -> MultipartFormData {
        let form = MultipartFormData(boundary: boundary)
        for argument in arguments {
            let part = try part(argument, body: body)
            let headers = MultipartFormData.partHeaders(
                name: part.name, fileName: part.filename, mimeType: part.contentType, escaping: escaping)
            switch part.content {
            case .data(let data) where escaping == .percent:
                form.append(data, withName: part.name, fileName: part.filename, mimeType: part.contentType)
            case .data(let data):
                form.append(InputStream(data: data), withLength: UInt64(data.count), headers: headers)
            case .file(let path):
                // `-F n=<big` has no filename and maybe no type: the stream form takes explicit headers.
                guard let stream = InputStream(fileAtPath: path), let size = body.regularFileSize(path) else { throw .unreadable(path) }
                form.append(stream, withLength: UInt64(size), headers: headers)
            }
        }
        return form
    }

    /// The size of `path` when it is a regular file this process can read; nil otherwise.
    static func regularFileSize(_ path: String) -> Int? {
        var info = stat()
        guard stat(path, &info) == 0, (info.st_mode & S_IFMT) == S_IFREG, access(path, R_OK) == 0 else { return nil }
        return Int(info.st_size)
    }

    /// curl's guess from a file extension (its own short table, not Client's); octet-stream otherwise.
    static func guessType(_ filename: String) -> String {
        let types = ["gif": "image/gif", "jpg": "image/jpeg", "jpeg": "image/jpeg", "png": "image/png", "svg": "image/svg+xml",
                     "txt": "text/plain", "htm": "text/html", "html": "text/html", "pdf": "application/pdf", "xml": "application/xml"]
        guard let dot = filename.lastIndex(of: ".") else { return "application/octet-stream" }
        return types[filename[filename.index(after: dot)...].lowercased()] ?? "application/octet-stream"
    }
}
