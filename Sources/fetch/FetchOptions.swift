import Client
import FoundationEssentials
#if canImport(Glibc)
import Glibc
#endif

/// fetch's command line, spelled like curl's.
struct FetchOptions {
    struct Invalid: Error, CustomStringConvertible { var description: String }

    static let usage = """
        usage: fetch URL [-X METHOD] [-H 'Name: value']... [-d DATA | --data-binary @FILE] [-o FILE] [-i] [-v]
                     [--max-time S] [--connect-timeout S] [-f] [--resolve HOST:PORT:ADDR[,ADDR]]...
               TLS:  [--cacert FILE] [--capath DIR] [-k] [--pinnedpubkey sha256//B64[;...]|FILE]
                     [-E/--cert FILE[:PASSWORD]] [--cert-type PEM|DER|P12] [--key FILE] [--pass PHRASE]
                     [--crlfile FILE] [--cert-status] [--ciphers LIST] [--tls13-ciphers LIST]
                     [--tlsv1.2 | --tlsv1.3] [--tls-max 1.2|1.3]
        """

    var url = ""
    var method = "GET"
    var methodGiven = false
    var headers = HTTPHeaders()
    var body: Data?
    var outputPath: String?
    var includeHeaders = false
    var verbose = false
    var maxTime: Double?
    var connectTimeout: Double?
    var failOnHTTPError = false
    /// curl's `--cacert`: trust only the CA certificates in this PEM file.
    var caCertificateFile: String?
    /// curl's `-k`: no certificate verification (a warning is printed).
    var insecure = false
    /// curl's `--pinnedpubkey`: `sha256//BASE64[;sha256//BASE64…]` or a PEM/DER public key file.
    var pinnedPublicKey: String?
    /// curl's `--capath`: trust the CA certificates in this directory.
    var caCertificateDirectory: String?
    /// curl's `--resolve HOST:PORT:ADDR[,ADDR…]` entries, parsed when the session is made.
    var resolveEntries: [String] = []
    /// curl's `-E/--cert FILE[:PASSWORD]`: the client certificate (chain) for mutual TLS.
    var clientCertificate: String?
    /// curl's `--cert-type`: `PEM` (default), `DER` or `P12` (guessed from a .p12/.pfx name).
    var clientCertificateType: String?
    /// curl's `--key`: the client key file; the certificate file itself when absent (PEM).
    var clientKey: String?
    /// curl's `--pass`: passphrase for the key or the PKCS#12 file.
    var passphrase: String?
    /// curl's `--crlfile`: a PEM CRL file; every certificate of the chain must be covered.
    var crlFile: String?
    /// curl's `--cert-status`: require a stapled OCSP response that says `good`.
    var requireCertificateStatus = false
    /// curl's `--ciphers`: TLS 1.2 cipher list (OpenSSL syntax).
    var ciphers: String?
    /// curl's `--tls13-ciphers`: TLS 1.3 cipher suites (OpenSSL syntax).
    var tls13Ciphers: String?
    /// curl's `--tlsv1.2` / `--tlsv1.3`: the lowest TLS version accepted.
    var minimumTLSVersion: String?
    /// curl's `--tls-max`: the highest TLS version offered.
    var maximumTLSVersion: String?

    init(_ arguments: [String]) throws(Invalid) {
        var iterator = arguments.makeIterator()
        func value(_ option: String) throws(Invalid) -> String {
            guard let next = iterator.next() else { throw Invalid(description: "\(option) needs a value") }
            return next
        }
        while let argument = iterator.next() {
            switch argument {
            case "-X", "--request": method = try value(argument).uppercased(); methodGiven = true
            case "-H", "--header":
                let line = try value(argument)
                guard let colon = line.firstIndex(of: ":") else { throw Invalid(description: "header \(line) has no colon") }
                let name = String(line[..<colon])
                let value = line[line.index(after: colon)...].drop(while: { $0 == " " || $0 == "\t" })
                headers.appendField(name: name, value: String(value))
            case "-d", "--data", "--data-raw": body = Data(try value(argument).utf8)
            case "--data-binary":
                let spec = try value(argument)
                if spec.hasPrefix("@") {
                    guard let data = readFile(String(spec.dropFirst())) else { throw Invalid(description: "cannot read \(spec.dropFirst())") }
                    body = data
                } else {
                    body = Data(spec.utf8)
                }
            case "-o", "--output": outputPath = try value(argument)
            case "-i", "--include": includeHeaders = true
            case "-v", "--verbose": verbose = true
            case "-f", "--fail": failOnHTTPError = true
            case "-m", "--max-time":
                guard let seconds = Double(try value(argument)), seconds > 0 else { throw Invalid(description: "--max-time needs a positive number") }
                maxTime = seconds
            case "--connect-timeout":
                guard let seconds = Double(try value(argument)), seconds > 0 else { throw Invalid(description: "--connect-timeout needs a positive number") }
                connectTimeout = seconds
            case "--cacert": caCertificateFile = try value(argument)
            case "-k", "--insecure": insecure = true
            case "--pinnedpubkey": pinnedPublicKey = try value(argument)
            case "--capath": caCertificateDirectory = try value(argument)
            case "--resolve": resolveEntries.append(try value(argument))
            case "-E", "--cert": clientCertificate = try value(argument)
            case "--cert-type": clientCertificateType = try value(argument).uppercased()
            case "--key": clientKey = try value(argument)
            case "--key-type":
                // The key's format (PEM or DER) is detected from its content.
                guard ["PEM", "DER"].contains(try value(argument).uppercased()) else { throw Invalid(description: "--key-type must be PEM or DER") }
            case "--pass": passphrase = try value(argument)
            case "--crlfile": crlFile = try value(argument)
            case "--cert-status": requireCertificateStatus = true
            case "--ciphers": ciphers = try value(argument)
            case "--tls13-ciphers": tls13Ciphers = try value(argument)
            case "-1", "--tlsv1", "--tlsv1.0", "--tlsv1.1":
                break  // "at least TLS 1.0/1.1": always true, Lariat never offers less than 1.2
            case "--tlsv1.2": minimumTLSVersion = "1.2"
            case "--tlsv1.3": minimumTLSVersion = "1.3"
            case "--tls-max":
                let version = try value(argument)
                guard ["1.2", "1.3"].contains(version) else { throw Invalid(description: "--tls-max must be 1.2 or 1.3") }
                maximumTLSVersion = version
            case "-h", "--help":
                print(FetchOptions.usage)
                exit(0)
            default:
                if argument.hasPrefix("-") { throw Invalid(description: "unknown option \(argument)") }
                guard url.isEmpty else { throw Invalid(description: "only one URL is supported") }
                url = argument
            }
        }
        guard !url.isEmpty else { throw Invalid(description: "no URL given") }
        if body != nil && !methodGiven { method = "POST" }
        if body != nil && headers.value(for: "Content-Type") == nil {
            headers.add(name: "Content-Type", value: "application/x-www-form-urlencoded")
        }
    }
}

/// Reads a whole file, or nil.
func readFile(_ path: String) -> Data? {
    let fd = open(path, O_RDONLY)
    guard fd >= 0 else { return nil }
    defer { close(fd) }
    var data = Data()
    var chunk = [UInt8](repeating: 0, count: 64 * 1024)
    while true {
        let n = chunk.withUnsafeMutableBytes { read(fd, $0.baseAddress, $0.count) }
        if n < 0 { if errno == EINTR { continue }; return nil }
        if n == 0 { return data }
        data.append(contentsOf: chunk[0..<n])
    }
}
