/// Loading certificates from files and directories.
extension Certificate {
    /// File name extensions ``load(directory:)`` picks up, compared case-insensitively.
    public static let directoryExtensions: Set<String> = ["pem", "crt", "cer", "der"]

    /// Loads every certificate of a PEM file, in order (a bundle such as ca-certificates.crt).
    ///
    /// - Parameter path: the file path.
    /// - Returns: the certificates.
    /// - Throws: ``TLSError/Kind/fileAccess``, or ``TLSError/Kind/decoding`` when a block is
    ///   malformed or the file holds no certificate.
    public static func load(pemFile path: String) throws(TLSError) -> [Certificate] {
        let certificates = try certificates(fromPEM: try FileBytes.read(path))
        guard !certificates.isEmpty else { throw TLSError(.decoding, "no certificate in \(path)") }
        return certificates
    }

    /// Loads the single certificate of a DER file.
    ///
    /// - Parameter path: the file path.
    /// - Returns: the certificate.
    /// - Throws: ``TLSError/Kind/fileAccess`` or ``TLSError/Kind/decoding``.
    public static func load(derFile path: String) throws(TLSError) -> Certificate {
        try Certificate(derBytes: try FileBytes.read(path))
    }

    /// Loads a PEM or DER certificate file, detecting the format from the content.
    ///
    /// - Parameter path: the file path.
    /// - Returns: the certificates (one for DER, one or more for PEM).
    /// - Throws: ``TLSError/Kind/fileAccess`` or ``TLSError/Kind/decoding``.
    public static func load(file path: String) throws(TLSError) -> [Certificate] {
        let bytes = try FileBytes.read(path)
        if FileBytes.looksLikePEM(bytes) {
            let certificates = try certificates(fromPEM: bytes)
            guard !certificates.isEmpty else { throw TLSError(.decoding, "no certificate in \(path)") }
            return certificates
        }
        return [try Certificate(derBytes: bytes)]
    }

    /// Loads every certificate from the `.pem`, `.crt`, `.cer` and `.der` files of a directory
    /// (not recursive), files in name order, each file PEM or DER by content.
    ///
    /// - Parameter path: the directory.
    /// - Returns: the certificates; empty when no file has a listed extension.
    /// - Throws: ``TLSError/Kind/fileAccess`` when the directory or a file cannot be read,
    ///   ``TLSError/Kind/decoding`` when a listed file is not a certificate.
    public static func load(directory path: String) throws(TLSError) -> [Certificate] {
        var result: [Certificate] = []
        for name in try FileBytes.list(path) {
            guard let dot = name.lastIndex(of: "."),
                directoryExtensions.contains(String(name[name.index(after: dot)...]).lowercased())
            else { continue }
            result += try load(file: path.hasSuffix("/") ? path + name : path + "/" + name)
        }
        return result
    }
}
