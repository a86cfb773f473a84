// The request body curl builds from -d/--data-ascii, --data-raw, --data-binary,
// --data-urlencode and --json: file references read, pieces joined. -F and --form-string
// parts are parsed in FormParts.swift and encoded by Client's MultipartFormData.
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
    /// The size of a regular, readable file (nil otherwise): `-F name=@file` parts larger than
    /// ``FormParts/inlineLimit`` are streamed from disk instead of read.
    var regularFileSize: (String) -> Int? = FormParts.regularFileSize

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
}

/// A `-F` argument fetch cannot use, with curl's status.
enum FormError: Error, Equatable {
    /// No `=` (curl: 2, "Illegally formatted input field").
    case malformed(String)
    /// A file that cannot be read (curl: 26).
    case unreadable(String)
}
