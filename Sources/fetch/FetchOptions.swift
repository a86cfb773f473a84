import Client
import FoundationEssentials
#if canImport(Glibc)
import Glibc
#endif
import Transport

/// fetch's command line as a value: what curl's options asked for, before anything is sent.
///
/// Built by ``ArgumentWalker`` from the argument vector (and `-K` files) through the
/// ``OptionTable``; turned into requests by `Fetch`. Later options override earlier ones, as in
/// curl; list-valued options (`-H`, `-d`, `-F`, `--resolve`) accumulate.
struct FetchOptions: Equatable {
    /// Where one URL's body goes.
    enum Output: Equatable {
        /// `-o FILE` (`-o -` is standard output).
        case file(String)
        /// `-O`: the last path segment of the URL, in the current directory.
        case remoteName
    }

    /// `--fail` and `--fail-with-body`.
    enum FailMode: Equatable {
        /// HTTP errors are ordinary responses (exit 0).
        case never
        /// `-f`: exit 22 on a status ≥ 400, body not written.
        case withoutBody
        /// `--fail-with-body`: exit 22 on a status ≥ 400 after writing the body.
        case withBody
    }

    /// `-4` / `-6`.
    enum IPVersion: Equatable { case any, v4, v6 }

    /// The URLs, in command-line order.
    var urls: [String] = []
    /// `-b`, `-c`, `-j` (FetchCookies.swift).
    var cookies = FetchCookieOptions()
    /// Issue 21's options (FetchExtraOptions.swift).
    var extras = FetchExtras()
    /// `--next`: the groups after this one, run in order after it.
    var following: [FetchOptions] = []
    /// `--next` at the end without a URL after it: curl's "no URL specified!" after the run.
    var endsWithEmptyGroup = false
    /// While parsing: the groups `--next` closed so far.
    var previousGroups: [FetchOptions] = []
    /// `--retry` and its companions (FetchRetry.swift).
    var retry = FetchRetryOptions()
    /// `-o`/`-O` in command-line order: the nth one belongs to the nth URL (as in curl).
    var outputs: [Output] = []
    /// `-X`: the method, sent as given.
    var method: String?
    /// `-H` lines in order (applied by ``RequestBuilder``).
    var headerLines: [String] = []
    /// `-A`.
    var userAgent: String?
    /// `-e` (without curl's `;auto` suffix).
    var referer: String?
    /// `-d`, `--data-*` and `--json` pieces, in order.
    var data: [DataPiece] = []
    /// `-F` and `--form-string` parts, in order (FormParts.swift).
    var form: [FormArgument] = []
    /// `--no-clobber`: an existing output file is kept; the body goes to `NAME.1` … `NAME.100`.
    var noClobber = false
    /// `--remove-on-error`: a failed transfer's output file is removed.
    var removeOnError = false
    /// `-G`: the data goes into the URL's query and the method stays GET.
    var dataInQuery = false
    /// `-I`: a HEAD request; only the head is written.
    var headOnly = false
    /// `--compressed`: ask for `deflate, gzip` and write the decoded body. Without it fetch sends
    /// no Accept-Encoding and writes the body as received, coded or not (curl's behaviour).
    var compressed = false
    /// `-J`: `-O` takes the file name from the response's Content-Disposition.
    var remoteHeaderName = false
    /// `-T FILE` (`-` for standard input): PUT the file (every URL gets it).
    var uploadFile: String?
    /// `-0/--http1.0`: request lines say HTTP/1.0.
    var http10 = false
    /// `--interface`: the local address or interface (LocalBinding.swift).
    var interface: String?
    /// `--local-port N[-M]`: the local ports to bind, nil for any.
    var localPorts: ClosedRange<Int>?
    /// `--tcp-fastopen`.
    var tcpFastOpen = false
    /// `--haproxy-protocol`: each connection starts with the PROXY protocol v1 line.
    var haproxyProtocol = false
    /// `--request-target`: the request line's target instead of the URL's path.
    var requestTarget: String?
    /// `--curves LIST`: the TLS key-exchange groups offered (OpenSSL's syntax).
    var curves: String?
    /// `--engine NAME` (SSLEngine.swift).
    var engine: String?
    /// `--crlf`: `-T`'s LFs go out as CRLF (CRLFUpload.swift).
    var crlf = false
    /// `-i`: the response head is written before the body.
    var includeHeaders = false
    /// `-D FILE`: the response head is written to FILE (`-` for standard output).
    var dumpHeaderPath: String?
    /// `--create-dirs`: missing directories of `-o` paths are created.
    var createDirectories = false
    /// `-s`: no error messages (unless `-S`).
    var silent = false
    /// `-S`: error messages even with `-s`.
    var showError = false
    /// `-f` / `--fail-with-body`.
    var failMode = FailMode.never
    /// `-v`: request and response heads and timings on standard error.
    var verbose = false
    /// `--form-escape`: multipart names and file names escaped with backslashes.
    var formEscape = false
    /// `--xattr`: the URL and Content-Type as the output file's extended attributes.
    var xattr = false
    /// `--trace FILE` / `--trace-ascii FILE`: where the run's trace goes (`-`, `%` or a path).
    var traceFile: String?
    /// Hex (`--trace`) or text (`--trace-ascii`).
    var traceStyle: TraceDump.Style = .hex
    /// `--trace-time`: a time before each trace section and -v line.
    var traceTime = false
    /// `-#`/`--progress-bar`: a bar instead of the progress meter.
    var progressBar = false
    /// `--no-progress-meter`: no meter (errors still shown).
    var noProgressMeter = false
    /// `-4` / `-6`.
    var ipVersion = IPVersion.any
    /// `--limit-rate` in bytes per second.
    var limitRate: Int?
    /// `--max-filesize` in bytes (exit 63 when the body is larger).
    var maxFileSize: Int?
    /// `-C`: resume the transfer (see `ContinueAt.swift`).
    var continueAt: ContinueAt?
    /// `-r`: the byte range asked for, without `bytes=`.
    var range: String?
    /// `-w`: the format written after each transfer (`@file` already read).
    var writeOut: String?
    /// `-m`.
    var maxTime: Double?
    /// `--connect-timeout`.
    var connectTimeout: Double?
    /// `-L`: redirects are followed (URLSession's rules; see `RedirectRules` in Client).
    var followRedirects = false
    /// `--location-trusted`: credentials (Authorization, Cookie) go along to other hosts too.
    var locationTrusted = false
    /// `--max-redirs`: redirects followed before exit 47; curl's default 50, `-1` for no limit.
    var maxRedirects = 50
    /// `-u user[:password]`, which wins over `user:password@` in the URL.
    var user: String?
    /// `--basic`, `--digest`, `--anyauth` (and their `--no-` forms): which schemes `-u`'s
    /// credentials answer, curl's bit set (empty: curl's default, Basic).
    var authMethods = AuthMethods()

    /// The schemes fetch authenticates with, as curl 7.88's `CURLAUTH_*` bits: `--basic` and
    /// `--digest` add one, `--anyauth` sets all. Basic alone is sent at once; any other set waits
    /// for the 401 and answers the strongest offered scheme of the set (so `--digest` never sends
    /// a password as Basic). Challenges are answered on the first origin only, unless `--location-trusted`.
    struct AuthMethods: OptionSet, Equatable, Sendable {
        let rawValue: Int
        /// `Authorization: Basic`.
        static let basic = AuthMethods(rawValue: 1)
        /// Digest (RFC 7616).
        static let digest = AuthMethods(rawValue: 2)
        /// `--anyauth`: every scheme fetch knows.
        static let any: AuthMethods = [.basic, .digest]

        /// Whether the credentials go out with the first request, as `Authorization: Basic`.
        var isPreemptiveBasic: Bool { self == [] || self == .basic }
    }
    /// curl's warnings about options (`--sslv3`), printed before the transfers unless `-s`
    /// came first.
    var parseWarnings: [String] = []
    /// Options that were understood but need Client features fetch does not have yet; refused
    /// before anything is sent (exit 2), never ignored.
    var unsupported: [String] = []

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
    /// curl's `--connect-to HOST1:PORT1:HOST2:PORT2` entries, in order (ConnectTo.swift).
    var connectToEntries: [String] = []
    /// curl's `--unix-socket PATH` / `--abstract-unix-socket NAME`: every connection goes to it.
    var unixSocket: UnixSocket?
    /// curl's proxy options: `-x`, `-U`, `--noproxy`, `-p`, `--socks5`, `--socks5-hostname`.
    var proxy = FetchProxyOptions()

    /// Where `--unix-socket` or `--abstract-unix-socket` sends connections.
    enum UnixSocket: Equatable {
        /// A socket file.
        case path(String)
        /// A name in Linux's abstract namespace.
        case abstract(String)
    }
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

    /// Whether an error message is printed for a failed transfer (`-s` without `-S` hides it).
    var showsErrors: Bool { !silent || showError }
}

/// What a command line asks for.
enum Invocation: Equatable {
    /// Transfers.
    case run(FetchOptions)
    /// `-h`/`--help [CATEGORY]`.
    case help(String?)
    /// `-V`/`--version`.
    case version
    /// `--engine list` (SSLEngine.swift).
    case engines
}

/// A command line fetch cannot run, with curl's exit status (2 for usage errors) and message.
struct FetchUsageError: Error, Equatable, CustomStringConvertible {
    /// The exit status.
    var status: Int32 = 2
    /// The message, without the `fetch: ` prefix.
    var description: String
    /// Whether curl's hint (`try 'fetch --help'`) follows the message.
    var hint = true

    /// curl's `option NAME: is unknown`.
    static func unknown(_ option: String) -> FetchUsageError { FetchUsageError(description: "option \(option): is unknown") }
    /// curl's `option NAME: requires parameter`.
    static func missingValue(_ option: String) -> FetchUsageError { FetchUsageError(description: "option \(option): requires parameter") }
    /// curl's `option NAME: expected a proper numerical parameter`.
    static func notNumeric(_ option: String) -> FetchUsageError {
        FetchUsageError(description: "option \(option): expected a proper numerical parameter")
    }

    /// curl's `Warning: ` lines instead of `fetch: MESSAGE` (hidden by `-s`).
    var warning: [String]?
    /// Lines printed before the message (curl's warning before `--manual: is unknown`).
    var preamble: [String] = []
    /// Not an error: `-h`/`-V` inside a `-K` file, carried out of the nested walk.
    var stop: Invocation?

    /// A `-h`/`-V` met inside a config file.
    static func stopped(_ invocation: Invocation) -> FetchUsageError {
        var error = FetchUsageError(description: "")
        error.stop = invocation
        return error
    }

    /// The reason without curl's `option NAME: ` prefix (for config-file warnings).
    var reason: String {
        guard description.hasPrefix("option "), let colon = description.firstOccurrence(of: ": ") else { return description }
        return String(description[colon.upperBound...])
    }

    /// The lines written to standard error.
    var lines: [String] {
        if let warning { return warning }
        var lines = preamble + (description.isEmpty ? [] : ["fetch: \(description)"])
        if hint { lines.append("fetch: try 'fetch --help' for more information") }
        return lines
    }
}

/// curl's `Warning: ` lines for `text` (tool_msgs.c voutf): cut at the last blank within 70
/// columns (the prefix makes 79), the blank kept at the end of the line.
func curlWarningLines(_ text: String, prefix: String = "Warning: ") -> [String] {
    let width = 79 - prefix.count
    var rest = Array(text + "\n")
    var lines: [String] = []
    while !rest.isEmpty {
        guard rest.count > width else {
            lines.append(prefix + String(rest.dropLast()))
            break
        }
        var cut = width - 1
        while cut > 0 && rest[cut] != " " && rest[cut] != "\t" { cut -= 1 }
        if cut == 0 { cut = width - 1 }
        lines.append(prefix + String(rest[...cut]))
        rest.removeFirst(cut + 1)
    }
    return lines
}

/// Reads a whole file (`-` is standard input), or nil.
func readFile(_ path: String) -> Data? {
    let fd = path == "-" ? 0 : open(path, O_RDONLY)
    guard fd >= 0 else { return nil }
    defer { if fd != 0 { close(fd) } }
    var data = Data()
    var chunk = [UInt8](repeating: 0, count: 64 * 1024)
    while true {
        let n = chunk.withUnsafeMutableBytes { read(fd, $0.baseAddress, $0.count) }
        if n < 0 { if errno == EINTR { continue }; return nil }
        if n == 0 { return data }
        data.append(contentsOf: chunk[0..<n])
    }
}

extension FetchOptions {
    /// `--trace`/`--trace-ascii`: replaces -v or an earlier trace of the other kind with curl's warning.
    mutating func setTrace(_ path: String, style: TraceDump.Style, name: String) {
        if (verbose || (traceFile != nil && traceStyle != style)) && !silent {
            parseWarnings.append("Warning: \(name) overrides an earlier trace/verbose option")
        }
        verbose = false
        traceFile = path
        traceStyle = style
    }
}
