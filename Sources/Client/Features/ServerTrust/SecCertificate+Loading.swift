// File loaders in place of Alamofire's `Bundle.main.af.certificates` / `.publicKeys`: Linux
// programs have no bundle, so pins come from PEM or DER files or a directory of them.

import FoundationEssentials
import TLS

extension SecCertificate {
    /// Loads every certificate in a PEM file (one or more `CERTIFICATE` blocks) or a DER file.
    ///
    /// - Parameter path: the file.
    /// - Returns: the certificates in file order.
    /// - Throws: `TLSError` (`.fileAccess` or `.decoding`).
    public static func certificates(inFile path: String) throws -> [SecCertificate] {
        try Certificate.load(file: path).map(SecCertificate.init(certificate:))
    }

    /// Loads the certificates of every `.pem`, `.crt`, `.cer` and `.der` file in a directory
    /// (not recursive; other files are ignored).
    ///
    /// - Parameter path: the directory.
    /// - Returns: the certificates, files in name order.
    /// - Throws: `TLSError` (`.fileAccess` or `.decoding`).
    public static func certificates(inDirectory path: String) throws -> [SecCertificate] {
        try Certificate.load(directory: path).map(SecCertificate.init(certificate:))
    }
}

extension SecKey {
    /// Loads a public key from a PEM (`PUBLIC KEY`) or DER (SubjectPublicKeyInfo) file, or the
    /// keys of the certificates in a PEM or DER certificate file.
    ///
    /// - Parameter path: the file.
    /// - Returns: one key for a key file; one per certificate for a certificate file.
    /// - Throws: `TLSError` when the file is neither.
    public static func publicKeys(inFile path: String) throws -> [SecKey] {
        if let key = try? PublicKey.load(file: path) { return [SecKey(publicKey: key)] }
        return try SecCertificate.certificates(inFile: path).compactMap(\.publicKey)
    }

    /// The public keys of the certificates in a directory (see
    /// ``SecCertificate/certificates(inDirectory:)``).
    ///
    /// - Parameter path: the directory.
    /// - Returns: one key per certificate.
    /// - Throws: `TLSError` (`.fileAccess` or `.decoding`).
    public static func publicKeys(inDirectory path: String) throws -> [SecKey] {
        try SecCertificate.certificates(inDirectory: path).compactMap(\.publicKey)
    }

    /// The key's curl-style pin, `sha256//BASE64` of its SubjectPublicKeyInfo.
    public var pinnedPublicKeyHash: String { publicKey.pinnedPublicKeyHash }
}
