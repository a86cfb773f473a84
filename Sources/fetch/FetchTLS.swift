// fetch's TLS options, spelled as curl's: --cacert, --capath, -k/--insecure, --pinnedpubkey,
// --cert/--cert-type/--key/--pass, --crlfile, --cert-status, --ciphers, --tls13-ciphers,
// --tlsv1.2/--tlsv1.3, --tls-max, and --resolve (name resolution, but it exists for TLS testing).
//
// Local files are loaded and checked before the request, so a bad file gets curl's exit code for
// it (58 client certificate, 77 CA file, 82 CRL file, 59 cipher list) instead of a handshake error.

import Client

#if canImport(Glibc)
import Glibc
#endif
import Transport

/// curl's `--pinnedpubkey`: the *leaf* certificate's SubjectPublicKeyInfo must hash (SHA-256) to
/// one of the pins; the chain is also validated unless `-k` was given.
struct PinnedPublicKeyEvaluator: ServerTrustEvaluating {
    let pins: PublicKeyPins
    let performDefaultValidation: Bool

    /// Pins from `sha256//BASE64[;sha256//BASE64…]` or from a PEM/DER public key file.
    init(_ specification: String, performDefaultValidation: Bool) throws {
        if specification.hasPrefix("sha256//") {
            pins = try PublicKeyPins(curlSyntax: specification)
        } else {
            pins = PublicKeyPins(keys: try SecKey.publicKeys(inFile: specification).map(\.publicKey))
        }
        self.performDefaultValidation = performDefaultValidation
    }

    func evaluate(_ trust: SecTrust, forHost host: String) throws {
        if performDefaultValidation { try trust.af.performDefaultValidation(forHost: host) }
        // The leaf's own key (curl pins the leaf only): `publicKeys` leaves out keys that do not
        // decode, so its first element is not always the leaf's.
        let serverKeys = trust.af.certificates.first?.publicKey.map { [$0] } ?? []
        guard let leaf = serverKeys.first, pins.matches(leaf.publicKey) else {
            throw AFError.serverTrustEvaluationFailed(reason: .publicKeyPinningFailed(
                host: host, trust: trust, pinnedKeys: [], serverKeys: serverKeys))
        }
    }
}

/// A local TLS input that cannot be used, with curl's exit status for it.
struct FetchSetupError: Error, CustomStringConvertible {
    let status: Int32
    let description: String
}

extension FetchOptions {
    /// The TLS configuration the options ask for, with every local file loaded and checked.
    ///
    /// - Throws: ``FetchSetupError`` with curl's status: 77 unreadable CA file or directory,
    ///   82 unreadable CRL file, 58 unusable client certificate or key, 59 a cipher list
    ///   OpenSSL rejects (or versions that select nothing), 2 for a bad `--cert-type`.
    func tlsConfiguration() throws(FetchSetupError) -> TLSConfiguration {
        var configuration = TLSConfiguration()
        var roots: [TrustRoots] = []
        if let caCertificateFile {
            do { _ = try Certificate.load(pemFile: caCertificateFile) } catch {
                throw FetchSetupError(status: 77, description: "--cacert \(caCertificateFile): \(error)")
            }
            roots.append(.file(caCertificateFile))
        }
        if let caCertificateDirectory {
            do { _ = try Certificate.load(directory: caCertificateDirectory) } catch {
                throw FetchSetupError(status: 77, description: "--capath \(caCertificateDirectory): \(error)")
            }
            roots.append(.directory(caCertificateDirectory))
        }
        if !roots.isEmpty { configuration.trustRoots = .combining(roots) }
        if insecure { configuration.verification = .none }
        if let crlFile {
            do { _ = try CertificateRevocationList.load(file: crlFile) } catch {
                throw FetchSetupError(status: 82, description: "--crlfile \(crlFile): \(error)")
            }
            // curl (OpenSSL backend) checks every certificate of the chain against the CRLs.
            configuration.crlFiles = [crlFile]
            configuration.crlCheck = .fullChain
        }
        if requireCertificateStatus { configuration.ocspStapling = .require }
        if let identity = try clientIdentity() {
            do { configuration.clientIdentity = try identity.validated() } catch {
                throw FetchSetupError(status: 58, description: "unable to use client certificate: \(error)")
            }
        }
        if let ciphers { configuration.cipherList = ciphers }
        if let tls13Ciphers { configuration.cipherSuites = tls13Ciphers }
        if let curves { configuration.groups = curves }
        if minimumTLSVersion == "1.3" { configuration.minimumVersion = .v1_3 }
        if let maximumTLSVersion { configuration.maximumVersion = maximumTLSVersion == "1.2" ? .v1_2 : .v1_3 }
        if ciphers != nil || tls13Ciphers != nil || curves != nil || maximumTLSVersion != nil {
            // Cipher strings and version ranges are only checked by OpenSSL: build a context now.
            var probe = configuration
            probe.trustRoots = .certificates([])
            probe.crlFiles = []
            do { _ = try TLSClientContext(configuration: probe) } catch {
                throw FetchSetupError(status: 59, description: "TLS settings refused: \(error)")
            }
        }
        return configuration
    }

    /// The identity `--cert`, `--cert-type`, `--key` and `--pass` describe, not yet loaded.
    private func clientIdentity() throws(FetchSetupError) -> ClientIdentity? {
        guard let clientCertificate else { return nil }
        let (path, inlinePassword) = FetchOptions.splitCertificateArgument(clientCertificate)
        let password = passphrase ?? inlinePassword
        let lowered = path.lowercased()
        let type = clientCertificateType ?? ((lowered.hasSuffix(".p12") || lowered.hasSuffix(".pfx")) ? "P12" : "PEM")
        switch type {
        case "P12":
            return .pkcs12(file: path, password: password ?? "")
        case "PEM":
            return .pemFiles(certificateChain: path, privateKey: clientKey ?? path, password: password)
        case "DER":
            do {
                let certificate = try Certificate.load(derFile: path)
                let key = try PrivateKey.load(file: clientKey ?? path, password: password)
                return .certificates([certificate], key: key)
            } catch {
                throw FetchSetupError(status: 58, description: "unable to use client certificate: \(error)")
            }
        default:
            throw FetchSetupError(status: 2, description: "--cert-type must be PEM, DER or P12, not \(type)")
        }
    }

    /// curl's `--cert FILE[:PASSWORD]`: the first unescaped colon separates a password, unless
    /// the whole argument names an existing file. `\:` is a literal colon.
    static func splitCertificateArgument(_ argument: String) -> (path: String, password: String?) {
        if access(argument, F_OK) == 0 || !argument.contains(":") { return (argument, nil) }
        var path = ""
        var index = argument.startIndex
        while index < argument.endIndex {
            let character = argument[index]
            let next = argument.index(after: index)
            if character == "\\", next < argument.endIndex, argument[next] == ":" {
                path.append(":")
                index = argument.index(after: next)
                continue
            }
            if character == ":" { return (path, String(argument[next...])) }
            path.append(character)
            index = next
        }
        return (path, nil)
    }

    /// The `--resolve` entries as a resolver.
    ///
    /// - Throws: ``FetchSetupError`` with status 49 (curl's CURLE_SETOPT_OPTION_SYNTAX) for an
    ///   entry that is not `[+]HOST:PORT:ADDR[,ADDR…]`.
    func hostResolver() throws(FetchSetupError) -> HostResolver {
        var resolver = HostResolver.system
        for entry in resolveEntries {
            var text = Substring(entry)
            if text.hasPrefix("+") { text = text.dropFirst() }  // curl: "+" marks a timeout-free entry
            if text.hasPrefix("-") { continue }                 // curl: removes a cached entry; none here
            let parts = text.split(separator: ":", maxSplits: 2, omittingEmptySubsequences: false)
            guard parts.count == 3, !parts[0].isEmpty, let port = Int(parts[1]), (1...65535).contains(port), !parts[2].isEmpty else {
                throw FetchSetupError(status: 49, description: "--resolve \(entry): expected HOST:PORT:ADDR[,ADDR...]")
            }
            let addresses = parts[2].split(separator: ",").map { String($0) }
            do {
                try resolver.override(host: String(parts[0]), port: port, addresses: addresses)
            } catch {
                throw FetchSetupError(status: 49, description: "--resolve \(entry): \(error)")
            }
        }
        for entry in connectToEntries { try ConnectTo.parse(entry).apply(to: &resolver) }
        // curl's --unix-socket: every host of the transfer goes to the socket; Host, SNI and the
        // certificate check keep the URL's name.
        do throws(HostResolver.InvalidAddress) {
            switch unixSocket {
            case .path(let path): try resolver.overrideUnixSocket(host: "*", path: path)
            case .abstract(let name): try resolver.overrideAbstractUnixSocket(host: "*", name: name)
            case nil: break
            }
        } catch {
            throw FetchSetupError(status: 2, description: "(2) bad Unix socket \(error.address): empty or over 107 bytes")
        }
        return resolver
    }

    /// A trust manager applying `--pinnedpubkey` to every host, or `nil`.
    func serverTrustManager() throws -> ServerTrustManager? {
        guard let pinnedPublicKey else { return nil }
        let evaluator = try PinnedPublicKeyEvaluator(pinnedPublicKey, performDefaultValidation: !insecure)
        return ServerTrustManager(allHostsMustBeEvaluated: false, evaluatorForHost: { _ in evaluator })
    }
}
