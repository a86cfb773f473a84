// curl options added for issue 21, beyond the core table (OptionTable.swift). The values live in
// FetchExtras; what each does to a request is in RequestExtras.swift, to the output files in
// OutputExtras.swift, to the run in Fetch.swift.
import FoundationEssentials

/// The issue 21 part of the option model (one field of ``FetchOptions``).
struct FetchExtras: Equatable {
    /// `--remote-name-all`: every URL without its own `-o` is saved as with `-O`.
    var remoteNameAll = false
    /// `--output-dir`: prefixed to every output file name (curl: even an absolute one).
    var outputDirectory: String?
    /// `--oauth2-bearer`: `Authorization: Bearer TOKEN`.
    var bearer: String?
    /// `--aws-sigv4`'s `PROVIDER1[:PROVIDER2[:REGION[:SERVICE]]]` (AWSSigV4.swift).
    var awsSigV4: String?
    /// `--doh-url`: resolve host names over DNS over HTTPS there (DoHResolver.swift).
    var dohURL: String?
    /// `--doh-insecure`: the DoH server's certificate is not verified (`-k` does not do this).
    var dohInsecure = false
    /// `--doh-cert-status`: the DoH server must staple a good OCSP response.
    var dohCertStatus = false
    /// `--url-query` pieces (curl's `--data-urlencode` syntax, `+` for verbatim), joined by `&`.
    var urlQueries: [String] = []
    /// `--fail-early`: the run stops at the first failed transfer.
    var failEarly = false
    /// `--stderr FILE` (`-` is standard output).
    var stderrPath: String?
    /// `--proto`: the schemes a transfer may use (nil: all fetch speaks).
    var protocols: Set<String>?
    /// `--proto-redir`: the schemes a redirect may go to (curl's default: http, https, ftp, ftps).
    var redirectProtocols: Set<String>?
    /// `--proto-default`: the scheme for a URL without one (curl's default: http).
    var defaultProtocol: String?
    /// `--disallow-username-in-url`: a URL with user info is refused (67).
    var disallowUsernameInURL = false
    /// `--rate`: least seconds between the starts of two transfers.
    var rateInterval: Double?
    /// `--path-as-is`: `/./` and `/../` sent as written (curl removes them by default).
    var pathAsIs = false
    /// `--post301`, `--post302`, `--post303`: a POST stays a POST after that redirect.
    var postRedirects: Set<Int> = []
    /// `--etag-save FILE`.
    var etagSave: String?
    /// `--etag-compare FILE`.
    var etagCompare: String?
    /// `--remote-time`: the output file's time is the response's Last-Modified.
    var remoteTime = false
    /// `-z/--time-cond`: the date (or file) and whether the condition is "older than" (`-`).
    var timeCondition: String?
    /// `-n/--netrc`, `--netrc-optional`, `--netrc-file`.
    var netrc = NetrcMode.ignored
    /// `--netrc-file FILE`.
    var netrcFile: String?
    /// `--create-file-mode`: the mode of files fetch creates (curl's default 0644).
    var createFileMode: UInt32 = 0o644
    /// `-g/--globoff`.
    var globOff = false
    /// `-Y/--speed-limit`: bytes a second below which a transfer is too slow.
    var speedLimit: Int?
    /// `-y/--speed-time`: seconds of slowness that end a transfer (28).
    var speedTime: Int?
    /// `-Z/--parallel`.
    var parallel = false
    /// `--parallel-max`: transfers at once with `-Z` (curl's default 50).
    var parallelMax = 50
    /// `--libcurl FILE`: where the run's Swift program goes (`-` is standard output; SwiftProgram.swift).
    var libcurlPath: String?
    /// `--http0.9`, `--ignore-content-length`, `--raw`, `--tr-encoding` (ResponseFraming.swift).
    var framing = ResponseFraming()

    /// How `.netrc` is used.
    enum NetrcMode: Equatable { case ignored, optional, required }

    /// `path` under `--output-dir` (curl joins them with `/` whatever `path` is).
    func placed(_ path: String) -> String {
        guard let outputDirectory, !outputDirectory.isEmpty, path != "-" else { return path }
        return outputDirectory + "/" + path
    }
}

/// Issue 21's options.
enum FetchExtraOptions {
    /// The options, as OptionTable specs.
    static let all: [OptionSpec] = reversed + transfer + files + ResponseFraming.options

    /// curl's reversed spellings of fetch's `--no-` switches (curl strips `no-` to look up).
    private static let reversed: [OptionSpec] = [
        OptionTable.flag("clobber") { $0.noClobber = !$1 },
        OptionTable.flag("progress-meter") { $0.noProgressMeter = !$1 },
        OptionTable.flag("buffer") { _, _ in },
    ]

    private static let transfer: [OptionSpec] = [
        OptionTable.value("oauth2-bearer") { $0.extras.bearer = $1 },
        OptionTable.value("aws-sigv4") { $0.extras.awsSigV4 = $1 },
        OptionTable.value("doh-url") { $0.extras.dohURL = $1 },
        OptionTable.flag("doh-insecure") { $0.extras.dohInsecure = $1 },
        OptionTable.flag("doh-cert-status") { $0.extras.dohCertStatus = $1 },
        OptionTable.value("url-query") { $0.extras.urlQueries.append($1) },
        OptionTable.flag("fail-early") { $0.extras.failEarly = $1 },
        OptionTable.value("stderr") { $0.extras.stderrPath = $1 },
        OptionTable.value("libcurl") { $0.extras.libcurlPath = $1 },
        OptionTable.value("proto") { options, text in options.extras.protocols = Protocols.parse(text, starting: Protocols.all) },
        OptionTable.value("proto-redir") { options, text in
            options.extras.redirectProtocols = Protocols.parse(text, starting: Protocols.redirectDefault)
        },
        OptionTable.value("proto-default") { options, text throws(FetchUsageError) in
            guard Protocols.curlKnown.contains(text.lowercased()) else {
                throw FetchUsageError(status: 1, description: "option --proto-default: a specified protocol is unsupported by libcurl")
            }
            options.extras.defaultProtocol = text.lowercased()
        },
        OptionTable.flag("disallow-username-in-url") { $0.extras.disallowUsernameInURL = $1 },
        OptionTable.value("rate") { options, text throws(FetchUsageError) in options.extras.rateInterval = try rate(text) },
        OptionTable.flag("path-as-is") { $0.extras.pathAsIs = $1 },
        OptionTable.flag("post301") { options, on in if on { options.extras.postRedirects.insert(301) } },
        OptionTable.flag("post302") { options, on in if on { options.extras.postRedirects.insert(302) } },
        OptionTable.flag("post303") { options, on in if on { options.extras.postRedirects.insert(303) } },
        OptionTable.value("time-cond", "z") { $0.extras.timeCondition = $1 },
        OptionTable.value("etag-compare") { $0.extras.etagCompare = $1 },
        OptionTable.flag("netrc", "n") { options, on in options.extras.netrc = on ? .required : .ignored },
        OptionTable.flag("netrc-optional") { options, on in options.extras.netrc = on ? .optional : .ignored },
        OptionTable.value("netrc-file") { options, path in
            options.extras.netrcFile = path
            if options.extras.netrc == .ignored { options.extras.netrc = .required }
        },
        OptionTable.flag("globoff", "g") { $0.extras.globOff = $1 },
        // -:/--next: what follows is a new group of options and URLs (only once this group has
        // a URL, as curl); curl's global options carry over.
        OptionTable.flag("next", ":") { options, _ in
            guard !options.urls.isEmpty else { return }
            var next = FetchOptions()
            next.silent = options.silent
            next.showError = options.showError
            next.verbose = options.verbose
            next.progressBar = options.progressBar
            next.noProgressMeter = options.noProgressMeter
            next.extras.failEarly = options.extras.failEarly
            next.extras.stderrPath = options.extras.stderrPath
            next.extras.libcurlPath = options.extras.libcurlPath
            next.extras.parallel = options.extras.parallel
            next.extras.parallelMax = options.extras.parallelMax
            next.parseWarnings = options.parseWarnings
            next.unsupported = options.unsupported
            options.parseWarnings = []
            next.previousGroups = options.previousGroups + [options]
            next.previousGroups[next.previousGroups.count - 1].previousGroups = []
            options = next
        },
        // -Z/--parallel, --parallel-max (curl: 1 to 300, default 50), --parallel-immediate.
        OptionTable.flag("parallel", "Z") { $0.extras.parallel = $1 },
        OptionTable.value("parallel-max") { options, text throws(FetchUsageError) in
            guard let value = Int(text), value >= 0 else { throw .notNumeric("--parallel-max") }
            options.extras.parallelMax = value > 300 ? 300 : (value < 1 ? 50 : value)
        },
        OptionTable.flag("parallel-immediate") { _, _ in },  // fetch connects as soon as a transfer starts
        // Numbers curl checks, for behaviour fetch has anyway: Client's own 100-continue wait
        // applies only when `-H 'Expect: 100-continue'` asks for one (fetch adds none), and its
        // Happy Eyeballs delay is RFC 8305's.
        OptionTable.value("expect100-timeout") { _, text throws(FetchUsageError) in _ = try OptionTable.seconds("--expect100-timeout", text) },
        OptionTable.value("happy-eyeballs-timeout-ms") { _, text throws(FetchUsageError) in
            guard let value = Int(text), value >= 0 else { throw .notNumeric("--happy-eyeballs-timeout-ms") }
        },
        OptionTable.value("speed-limit", "Y") { options, text throws(FetchUsageError) in
            guard let value = Int(text), value >= 0 else { throw .notNumeric("--speed-limit") }
            options.extras.speedLimit = value
        },
        OptionTable.value("speed-time", "y") { options, text throws(FetchUsageError) in
            guard let value = Int(text), value >= 0 else { throw .notNumeric("--speed-time") }
            options.extras.speedTime = value
        },
        // fetch writes no CONNECT response anywhere: what this asks for is what it does.
        OptionTable.flag("suppress-connect-headers") { _, _ in },
    ]

    private static let files: [OptionSpec] = [
        OptionTable.flag("remote-name-all") { $0.extras.remoteNameAll = $1 },
        OptionTable.value("output-dir") { $0.extras.outputDirectory = $1 },
        OptionTable.flag("remote-time", "R") { $0.extras.remoteTime = $1 },
        OptionTable.value("etag-save") { $0.extras.etagSave = $1 },
        OptionTable.value("create-file-mode") { options, text throws(FetchUsageError) in
            // curl: an octal number up to 0777.
            guard let mode = UInt32(text, radix: 8), mode <= 0o777 else { throw .notNumeric("--create-file-mode") }
            options.extras.createFileMode = mode
        },
    ]

    /// curl's `--rate N/U`: N transfers per second, minute, hour or day (U: s, m, h, d; one
    /// second when absent) as the interval between two starts.
    static func rate(_ text: String) throws(FetchUsageError) -> Double {
        let parts = text.split(separator: "/", maxSplits: 1, omittingEmptySubsequences: false)
        guard let count = Int(parts[0]), count > 0 else { throw .notNumeric("--rate") }
        var unit = 1.0
        if parts.count == 2 {
            switch parts[1] {
            case "s": unit = 1
            case "m": unit = 60
            case "h": unit = 3600
            case "d": unit = 86400
            default: throw FetchUsageError(description: "option --rate: is badly used here")
            }
        }
        return unit / Double(count)
    }
}

/// curl's `--proto` list syntax.
enum Protocols {
    /// Every protocol curl 7.88 knows (for `all`, and for `--proto-default`'s check).
    static let curlKnown: Set<String> = [
        "dict", "file", "ftp", "ftps", "gopher", "gophers", "http", "https", "imap", "imaps", "ldap", "ldaps", "mqtt", "pop3",
        "pop3s", "rtmp", "rtsp", "scp", "sftp", "smb", "smbs", "smtp", "smtps", "telnet", "tftp",
    ]
    /// `all`.
    static let all = curlKnown
    /// curl 7.88's default for redirects (CURLOPT_REDIR_PROTOCOLS_STR).
    static let redirectDefault: Set<String> = ["http", "https", "ftp", "ftps"]

    /// Applies `text` (`[=+-]name,…`; `=` sets, `-` removes, `+` or nothing adds; `all`) to
    /// `starting`. Unknown names are skipped, as curl does.
    static func parse(_ text: String, starting: Set<String>) -> Set<String> {
        var result = starting
        for item in text.split(separator: ",") {
            var name = Substring(item)
            var action: Character = "+"
            while let first = name.first, "=+-".contains(first) {
                action = first
                name = name.dropFirst()
            }
            let names: Set<String> = name.lowercased() == "all" ? all : (curlKnown.contains(name.lowercased()) ? [name.lowercased()] : [])
            switch action {
            case "=": result = names
            case "-": result.subtract(names)
            default: result.formUnion(names)
            }
        }
        return result
    }
}
