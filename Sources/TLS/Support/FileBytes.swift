internal import COpenSSL
internal import Glibc

/// Reads files and lists directories for the certificate and key loaders.
/// Files are read through OpenSSL's `BIO_new_file`; directories through `opendir`.
enum FileBytes {
    /// Refuse to read more than this from one file: certificate bundles are a few hundred KiB
    /// (Debian's ca-certificates.crt is about 210 KiB), so 16 MiB only stops runaway inputs.
    static let maxFileSize = 16 << 20

    /// The whole content of the file at `path`.
    ///
    /// - Throws: ``TLSError/Kind/fileAccess`` when the file cannot be opened, read, or is too large.
    static func read(_ path: String) throws(TLSError) -> [UInt8] {
        guard let bio = BIO_new_file(path, "rb") else {
            _ = OpenSSLError.drain()
            throw TLSError(.fileAccess, "cannot open \(path)")
        }
        defer { BIO_free(bio) }
        var output: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 16384)
        while true {
            let count = chunk.withUnsafeMutableBytes { BIO_read(bio, $0.baseAddress, Int32($0.count)) }
            if count <= 0 { break }
            output.append(contentsOf: chunk.prefix(Int(count)))
            if output.count > maxFileSize { throw TLSError(.fileAccess, "\(path) is larger than \(maxFileSize) bytes") }
        }
        _ = OpenSSLError.drain()
        return output
    }

    /// Regular-file names in `directory` (not recursive), sorted so loading order is stable.
    ///
    /// - Throws: ``TLSError/Kind/fileAccess`` when the directory cannot be opened.
    static func list(_ directory: String) throws(TLSError) -> [String] {
        guard let handle = opendir(directory) else { throw TLSError(.fileAccess, "cannot open directory \(directory)") }
        defer { closedir(handle) }
        var names: [String] = []
        while let entry = readdir(handle) {
            let name = OpenSSLAccessors.name(of: entry)
            if name == "." || name == ".." { continue }
            names.append(name)
        }
        return names.sorted()
    }

    /// Whether `path` names an existing file or directory that we may read.
    static func isReadable(_ path: String) -> Bool { access(path, R_OK) == 0 }

    /// Whether `bytes` look like PEM (contain a `-----BEGIN ` line) rather than DER.
    static func looksLikePEM(_ bytes: [UInt8]) -> Bool {
        KeyInputPrefilter.firstIndex(of: Array("-----BEGIN ".utf8), in: bytes, from: 0) != nil
    }
}
