// The request body curl builds from -d/--data-ascii, --data-raw, --data-binary,
// --data-urlencode, --json and -F: file references read, pieces joined, form parts encoded.
import FoundationEssentials

/// One `-d`-family argument.
struct DataPiece: Equatable {
    /// Which option gave it.
    enum Kind: Equatable {
        /// `-d`, `--data`, `--data-ascii`: `@file` read with CR and LF removed.
        case ascii
        /// `--data-raw`: taken as written, `@` included.
        case raw
        /// `--data-binary`: `@file` read as is.
        case binary
        /// `--data-urlencode`: `content`, `=content`, `name=content`, `@file`, `name@file`.
        case urlencode
        /// `--json`: like `--data-binary`, with JSON content type and accept headers.
        case json
    }

    /// Which option gave it.
    var kind: Kind
    /// The argument as written.
    var text: String
}

/// A file fetch could not read, with curl's status (26, "read error").
struct ReadFailure: Error, Equatable {
    /// The path as given.
    var path: String
}

/// Builds bodies; file access goes through `read` so tests need no files.
struct BodyBuilder {
    /// Reads a file (`-` is standard input).
    var read: (String) -> Data? = readFile

    /// The `-d`-family pieces as one body, joined with `&` (`--json` pieces are concatenated).
    func data(_ pieces: [DataPiece]) throws(ReadFailure) -> Data {
        var body = Data()
        var previous: DataPiece.Kind?
        for piece in pieces {
            let bytes = try self.bytes(piece)
            if let previous, !(previous == .json && piece.kind == .json) { body.append(UInt8(ascii: "&")) }
            body.append(bytes)
            previous = piece.kind
        }
        return body
    }

    /// One piece's bytes.
    func bytes(_ piece: DataPiece) throws(ReadFailure) -> Data {
        switch piece.kind {
        case .raw:
            return Data(piece.text.utf8)
        case .ascii:
            guard piece.text.hasPrefix("@") else { return Data(piece.text.utf8) }
            return Data(try file(String(piece.text.dropFirst())).filter { $0 != 0x0A && $0 != 0x0D })
        case .binary, .json:
            guard piece.text.hasPrefix("@") else { return Data(piece.text.utf8) }
            return try file(String(piece.text.dropFirst()))
        case .urlencode:
            return Data(try urlencoded(piece.text).utf8)
        }
    }

    /// `--data-urlencode`: the first `=` or `@` decides the form.
    func urlencoded(_ text: String) throws(ReadFailure) -> String {
        guard let split = text.firstIndex(where: { $0 == "=" || $0 == "@" }) else { return Self.escape(Data(text.utf8)) }
        let name = String(text[..<split])
        let rest = String(text[text.index(after: split)...])
        let content = text[split] == "@" ? try file(rest) : Data(rest.utf8)
        let encoded = Self.escape(content)
        return name.isEmpty ? encoded : "\(name)=\(encoded)"
    }

    /// curl's `--data-urlencode` escaping: space as `+`, everything else but ALPHA, DIGIT and
    /// `-._~` as `%XX`.
    static func escape(_ bytes: Data) -> String {
        let hex = Array("0123456789ABCDEF".utf8)
        var out: [UInt8] = []
        for byte in bytes {
            switch byte {
            case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "0")...UInt8(ascii: "9"),
                 UInt8(ascii: "-"), UInt8(ascii: "."), UInt8(ascii: "_"), UInt8(ascii: "~"):
                out.append(byte)
            case UInt8(ascii: " "):
                out.append(UInt8(ascii: "+"))
            default:
                out += [UInt8(ascii: "%"), hex[Int(byte >> 4)], hex[Int(byte & 15)]]
            }
        }
        return String(decoding: out, as: UTF8.self)
    }

    private func file(_ path: String) throws(ReadFailure) -> Data {
        guard let data = read(path) else { throw ReadFailure(path: path) }
        return data
    }

    // MARK: -F

    /// One `-F` part, parsed.
    struct FormPart: Equatable {
        /// The field name.
        var name: String
        /// The content.
        var content: Data
        /// `filename=` in Content-Disposition (set for `@file` parts).
        var filename: String?
        /// The part's Content-Type, if any.
        var contentType: String?
    }

    /// Parses `name=value`, `name=@file;type=…;filename=…` and `name=<file`.
    func formPart(_ spec: String) throws(FormError) -> FormPart {
        guard let equals = spec.firstIndex(of: "=") else { throw .malformed(spec) }
        let name = String(spec[..<equals])
        var fields = String(spec[spec.index(after: equals)...]).split(separator: ";", omittingEmptySubsequences: false).map(String.init)
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
            guard let content = read(path) else { throw .unreadable(path) }
            let base = path.split(separator: "/").last.map(String.init) ?? path
            return FormPart(name: name, content: content, filename: filename ?? base, contentType: type ?? Self.guessType(base))
        }
        if value.hasPrefix("<") {
            let path = String(value.dropFirst())
            guard let content = read(path) else { throw .unreadable(path) }
            return FormPart(name: name, content: content, filename: filename, contentType: type)
        }
        return FormPart(name: name, content: Data(value.utf8), filename: filename, contentType: type)
    }

    /// The multipart/form-data body of `parts` and its boundary.
    func form(_ specs: [String], boundary: String) throws(FormError) -> Data {
        var body = Data()
        for spec in specs {
            let part = try formPart(spec)
            var head = "--\(boundary)\r\nContent-Disposition: form-data; name=\"\(part.name)\""
            if let filename = part.filename { head += "; filename=\"\(filename)\"" }
            head += "\r\n"
            if let type = part.contentType { head += "Content-Type: \(type)\r\n" }
            body.append(contentsOf: Array((head + "\r\n").utf8))
            body.append(part.content)
            body.append(contentsOf: Array("\r\n".utf8))
        }
        body.append(contentsOf: Array("--\(boundary)--\r\n".utf8))
        return body
    }

    /// curl's guess from a file extension; octet-stream otherwise.
    static func guessType(_ filename: String) -> String {
        let types = ["gif": "image/gif", "jpg": "image/jpeg", "jpeg": "image/jpeg", "png": "image/png", "svg": "image/svg+xml",
                     "txt": "text/plain", "htm": "text/html", "html": "text/html", "pdf": "application/pdf", "xml": "application/xml"]
        guard let dot = filename.lastIndex(of: ".") else { return "application/octet-stream" }
        return types[filename[filename.index(after: dot)...].lowercased()] ?? "application/octet-stream"
    }
}

/// A `-F` argument fetch cannot use, with curl's status.
enum FormError: Error, Equatable {
    /// No `=` (curl: 2, "Illegally formatted input field").
    case malformed(String)
    /// A file that cannot be read (curl: 26).
    case unreadable(String)
}
