// Linux stand-ins with Apple's Security names, so pinning code written for Alamofire compiles
// unchanged against Lariat: `SecTrust`, `SecCertificate`, `SecKey`, `SecCertificateCreateWithData`
// and the `CFData`/`kCFAllocatorDefault` spellings that call needs. They wrap the TLS module's
// `Certificate`, `PublicKey` and `TrustEvaluationContext`; nothing here talks to OpenSSL directly.

public import FoundationEssentials
import TLS

/// Apple's `CFData` spelling: on Linux simply `Data`, so `data as CFData` compiles unchanged.
public typealias CFData = Data

/// Apple's allocator type, kept only so `SecCertificateCreateWithData(nil, …)` and
/// `SecCertificateCreateWithData(kCFAllocatorDefault, …)` compile. Lariat ignores it.
public struct CFAllocator: Sendable {}

/// Apple's default allocator constant: `nil`, as on Apple platforms. Ignored by Lariat.
public let kCFAllocatorDefault: CFAllocator? = nil

/// The server's trust object as an evaluator sees it during the TLS handshake: the presented
/// chain (leaf first), the host, and the TLS module's evaluation primitives.
///
/// Made by Lariat only; evaluators read it through `trust.af`.
public final class SecTrust: Sendable, CustomStringConvertible {
    /// The TLS module's view of the handshake: chain, stapled OCSP, trust store, configuration.
    public let context: TrustEvaluationContext
    /// The presented chain, leaf first, as `SecCertificate`s.
    public let certificates: [SecCertificate]

    /// Wraps an evaluation context.
    ///
    /// - Parameter context: the handshake's trust context from the TLS module.
    public init(context: TrustEvaluationContext) {
        self.context = context
        self.certificates = context.peerCertificates.map(SecCertificate.init(certificate:))
    }

    /// The host name or IP literal the client connected to (and sent as SNI).
    public var host: String { context.host }

    /// `SecTrust(host, N certificates)`.
    public var description: String { "SecTrust(\(host), \(certificates.count) certificates)" }
}

/// An X.509 certificate with Apple's name; wraps the TLS module's `Certificate`.
public final class SecCertificate: Sendable, Hashable, CustomStringConvertible {
    /// The parsed certificate.
    public let certificate: Certificate

    /// Wraps a parsed certificate.
    ///
    /// - Parameter certificate: the certificate.
    public init(certificate: Certificate) { self.certificate = certificate }

    /// The certificate's DER encoding (what Apple's `SecCertificateCopyData` returns).
    public var data: Data { Data(certificate.derBytes) }

    /// The certified public key, or `nil` when it does not decode (as Apple's
    /// `SecCertificateCopyKey`): a server can present such a certificate.
    public var publicKey: SecKey? { certificate.decodedPublicKey.map(SecKey.init(publicKey:)) }

    /// Equal when the DER encodings are equal.
    public static func == (lhs: SecCertificate, rhs: SecCertificate) -> Bool { lhs.certificate == rhs.certificate }

    /// Hashes the DER encoding.
    public func hash(into hasher: inout Hasher) { hasher.combine(certificate) }

    /// The certificate's subject and issuer.
    public var description: String { certificate.description }
}

/// A public key with Apple's name; wraps the TLS module's `PublicKey`. Two keys are equal
/// when their SubjectPublicKeyInfo encodings are equal (what public key pinning compares).
public final class SecKey: Sendable, Hashable, CustomStringConvertible {
    /// The key.
    public let publicKey: PublicKey

    /// Wraps a key.
    ///
    /// - Parameter publicKey: the key.
    public init(publicKey: PublicKey) { self.publicKey = publicKey }

    /// Equal when the SubjectPublicKeyInfo DER encodings are equal.
    public static func == (lhs: SecKey, rhs: SecKey) -> Bool { lhs.publicKey == rhs.publicKey }

    /// Hashes the SubjectPublicKeyInfo encoding.
    public func hash(into hasher: inout Hasher) { hasher.combine(publicKey) }

    /// Algorithm and size, such as `PublicKey(RSA 2048 bits)`.
    public var description: String { publicKey.description }
}

/// Apple's `SecCertificateCreateWithData`: a certificate from DER bytes, or `nil` if they do not
/// parse as exactly one X.509 certificate.
///
/// - Parameters:
///   - allocator: ignored (`nil` or `kCFAllocatorDefault`).
///   - data: the DER encoding.
/// - Returns: the certificate, or `nil` for malformed input.
public func SecCertificateCreateWithData(_ allocator: CFAllocator?, _ data: CFData) -> SecCertificate? {
    guard let certificate = try? Certificate(derBytes: Array(data)) else { return nil }
    return SecCertificate(certificate: certificate)
}

extension SecTrust: AlamofireExtended {}
extension SecCertificate: AlamofireExtended {}

extension AlamofireExtension where ExtendedType == SecTrust {
    /// The presented chain, leaf first.
    public var certificates: [SecCertificate] { type.certificates }

    /// The DER encoding of each presented certificate, leaf first.
    public var certificateData: [Data] { type.certificates.map(\.data) }

    /// The public key of each presented certificate, leaf first (those whose key does not
    /// decode are left out, as Alamofire's `compactMap` over `SecCertificateCopyKey` does).
    public var publicKeys: [SecKey] { type.certificates.compactMap(\.publicKey) }
}

extension AlamofireExtension where ExtendedType == SecCertificate {
    /// The certificate's public key.
    public var publicKey: SecKey? { type.publicKey }
}

extension Array: AlamofireExtended {}

extension AlamofireExtension where ExtendedType == [SecCertificate] {
    /// The DER encoding of each certificate.
    public var data: [Data] { type.map(\.data) }

    /// The public key of each certificate whose key decodes.
    public var publicKeys: [SecKey] { type.compactMap(\.publicKey) }
}
