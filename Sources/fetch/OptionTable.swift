// The options fetch knows, spelled as curl spells them: long name, short letter, and what each
// does to the option model. ArgumentWalker finds them; nothing here reads argv.

/// One option of the table.
struct OptionSpec: Sendable {
    /// What the option does.
    enum Action: Sendable {
        /// A switch; `--no-NAME` passes `false`.
        case flag(@Sendable (inout FetchOptions, Bool) throws(FetchUsageError) -> Void)
        /// An option with one value.
        case value(@Sendable (inout FetchOptions, String) throws(FetchUsageError) -> Void)
        /// `-h`, `-V`: the whole invocation becomes this.
        case stop(Invocation)
    }

    /// The long name without `--`.
    let long: String
    /// The short letter, if any.
    let short: Character?
    /// What the option does.
    let action: Action

    /// Whether the option takes a value.
    var takesValue: Bool { if case .value = action { true } else { false } }
}

/// The table and its lookups.
enum OptionTable {
    /// Finds a long option (without the `--`): the exact name, else as curl 7.88 does, the one
    /// option the name is a prefix of (`--verb` is `--verbose`).
    ///
    /// - Throws: curl's "is ambiguous" when the prefix starts several options.
    static func long(_ name: String, as written: String? = nil) throws(FetchUsageError) -> OptionSpec? {
        if let exact = byLong[name] { return exact }
        guard !name.isEmpty else { return nil }
        let hits = sortedLongNames.filter { $0.hasPrefix(name) }
        if hits.count > 1 { throw FetchUsageError(description: "option \(written ?? "--" + name): is ambiguous") }
        return hits.first.flatMap { byLong[$0] }
    }

    /// The exact long option, without prefix matching.
    static func exactLong(_ name: String) -> OptionSpec? { byLong[name] }

    /// The options fetch implements (not the inert or refused ones), by long name.
    static let implemented: Set<String> = Set(own.map(\.long))

    /// Finds a short option.
    static func short(_ letter: Character) -> OptionSpec? { byShort[letter] }

    private static let byLong: [String: OptionSpec] = Dictionary(all.map { ($0.long, $0) }, uniquingKeysWith: { first, _ in first })
    private static let sortedLongNames: [String] = byLong.keys.sorted()
    private static let byShort: [Character: OptionSpec] = Dictionary(
        all.compactMap { spec in spec.short.map { ($0, spec) } }, uniquingKeysWith: { first, _ in first })

    static func flag(
        _ long: String, _ short: Character? = nil, _ apply: @escaping @Sendable (inout FetchOptions, Bool) throws(FetchUsageError) -> Void
    ) -> OptionSpec {
        OptionSpec(long: long, short: short, action: .flag(apply))
    }

    static func value(
        _ long: String, _ short: Character? = nil, _ apply: @escaping @Sendable (inout FetchOptions, String) throws(FetchUsageError) -> Void
    ) -> OptionSpec {
        OptionSpec(long: long, short: short, action: .value(apply))
    }

    /// An option whose feature needs Client work not done yet: parsed (its value consumed) and
    /// recorded, so the run is refused with a clear message instead of ignoring it.
    private static func pending(_ long: String, _ short: Character? = nil, takesValue: Bool, because reason: String) -> OptionSpec {
        let name = short.map { "-\($0), --\(long)" } ?? "--\(long)"
        let note = "\(name): \(reason)"
        if takesValue { return value(long, short) { options, _ in options.unsupported.append(note) } }
        return flag(long, short) { options, on in if on { options.unsupported.append(note) } }
    }

    /// A number of seconds (curl accepts fractions).
    static func seconds(_ option: String, _ text: String) throws(FetchUsageError) -> Double {
        guard let value = Double(text), value >= 0, value.isFinite else { throw .notNumeric(option) }
        return value
    }

    /// curl's sizes: a number with an optional k, M, G suffix (powers of 1024).
    static func size(_ option: String, _ text: String) throws(FetchUsageError) -> Int {
        var digits = Substring(text)
        var multiplier = 1
        switch digits.last?.lowercased() {
        case "k": multiplier = 1 << 10; digits = digits.dropLast()
        case "m": multiplier = 1 << 20; digits = digits.dropLast()
        case "g": multiplier = 1 << 30; digits = digits.dropLast()
        default: break
        }
        guard let number = Double(digits), number >= 0, number.isFinite else { throw .notNumeric(option) }
        return Int(number * Double(multiplier))
    }

    private static let own: [OptionSpec] = transfer + body + output + tls + proxy + cookiesAndRetry + redirectsAndAuth + pendingOptions + trace
        + FetchExtraOptions.all
    private static let all: [OptionSpec] = own + curlOnly

    /// curl's other options, each with its CurlOptionFate; value-taking ones consume their value.
    private static let curlOnly: [OptionSpec] = {
        let taken = Set(own.map(\.long))
        let takenShort = Set(own.compactMap(\.short))
        return CurlOptionCatalog.entries.compactMap { entry -> OptionSpec? in
            guard !taken.contains(entry.long), let fate = CurlOptionFate.of(entry.long) else { return nil }
            let short = entry.short.flatMap { takenShort.contains($0) ? nil : $0 }
            let name = "--" + entry.long
            if entry.takesValue { return value(entry.long, short) { options, _ throws(FetchUsageError) in try fate.apply(name, to: &options) } }
            return flag(entry.long, short) { options, _ throws(FetchUsageError) in try fate.apply(name, to: &options) }
        } + CurlOptionFate.aliases.map { alias in flag(alias) { _, _ in } }
    }()

    /// Redirects (`-L`) and authentication (`-u`, `--basic`, `--digest`, `--anyauth`).
    private static let redirectsAndAuth: [OptionSpec] = [
        flag("location", "L") { $0.followRedirects = $1 },
        flag("location-trusted") { options, on in
            options.locationTrusted = on
            if on { options.followRedirects = true }  // curl: --location-trusted implies -L
        },
        value("max-redirs") { options, text throws(FetchUsageError) in
            guard let number = Int(text), number >= -1 else { throw .notNumeric("--max-redirs") }
            options.maxRedirects = number
        },
        // No password prompt: `-u user` sends an empty password (curl would ask on a terminal).
        value("user", "u") { $0.user = $1 },
        // curl's bits: --basic and --digest add (or, with --no-, remove) one, --anyauth sets all
        // (--no-anyauth changes nothing, as curl).
        flag("basic") { options, on in if on { options.authMethods.insert(.basic) } else { options.authMethods.remove(.basic) } },
        flag("digest") { options, on in if on { options.authMethods.insert(.digest) } else { options.authMethods.remove(.digest) } },
        flag("anyauth") { options, on in if on { options.authMethods = .any } },
    ]

    private static let transfer: [OptionSpec] = [
        value("request", "X") { $0.method = $1 },
        value("header", "H") { $0.headerLines.append($1) },
        value("user-agent", "A") { $0.userAgent = $1 },
        value("referer", "e") { options, text in
            options.referer = text.hasSuffix(";auto") ? String(text.dropLast(5)) : text
        },
        flag("get", "G") { $0.dataInQuery = $1 },
        flag("head", "I") { $0.headOnly = $1 },
        flag("compressed") { $0.compressed = $1 },
        flag("fail", "f") { options, on in options.failMode = on ? .withoutBody : .never },
        flag("fail-with-body") { options, on in options.failMode = on ? .withBody : .never },
        flag("silent", "s") { $0.silent = $1 },
        flag("show-error", "S") { $0.showError = $1 },
        flag("verbose", "v") { options, on in
            // curl: -v replaces an earlier --trace/--trace-ascii, with a warning.
            if on, options.traceFile != nil, !options.silent {
                options.parseWarnings.append("Warning: -v, --verbose overrides an earlier trace/verbose option")
            }
            if on { options.traceFile = nil }
            options.verbose = on
        },
        flag("ipv4", "4") { options, on in options.ipVersion = on ? .v4 : .any },
        flag("ipv6", "6") { options, on in options.ipVersion = on ? .v6 : .any },
        flag("http1.1") { options, _ in options.http10 = false },
        // HTTP/1.0 request lines, no Expect and no chunked upload (UploadFile.swift), as curl.
        flag("http1.0", "0") { options, on in options.http10 = on },
        value("request-target") { $0.requestTarget = $1 },
        // The socket's local end and options (LocalBinding.swift).
        value("interface") { $0.interface = $1 },
        value("local-port") { options, text throws(FetchUsageError) in options.localPorts = try LocalBinding.ports(text) },
        flag("tcp-fastopen") { $0.tcpFastOpen = $1 },
        flag("haproxy-protocol") { $0.haproxyProtocol = $1 },
        value("max-time", "m") { options, text throws(FetchUsageError) in options.maxTime = try seconds("-m", text) },
        value("connect-timeout") { options, text throws(FetchUsageError) in options.connectTimeout = try seconds("--connect-timeout", text) },
        value("limit-rate") { options, text throws(FetchUsageError) in options.limitRate = try size("--limit-rate", text) },
        value("max-filesize") { options, text throws(FetchUsageError) in options.maxFileSize = try size("--max-filesize", text) },
        value("continue-at", "C") { options, text throws(FetchUsageError) in options.continueAt = try .parse(text) },
        value("range", "r") { $0.range = FetchOptions.normalizedRange($1) },
        value("resolve") { $0.resolveEntries.append($1) },
        value("connect-to") { $0.connectToEntries.append($1) },
        value("unix-socket") { $0.unixSocket = .path($1) },
        value("abstract-unix-socket") { $0.unixSocket = .abstract($1) },
        flag("progress-bar", "#") { $0.progressBar = $1 },
        flag("no-progress-meter") { $0.noProgressMeter = $1 },
        flag("disable", "q") { _, _ in },       // fetch reads no default config file anyway
        OptionSpec(long: "help", short: "h", action: .stop(.help(nil))),
        OptionSpec(long: "version", short: "V", action: .stop(.version)),
    ]

    private static let body: [OptionSpec] = [
        value("data", "d") { $0.data.append(DataPiece(kind: .ascii, text: $1)) },
        value("data-ascii") { $0.data.append(DataPiece(kind: .ascii, text: $1)) },
        value("data-raw") { $0.data.append(DataPiece(kind: .raw, text: $1)) },
        value("data-binary") { $0.data.append(DataPiece(kind: .binary, text: $1)) },
        value("data-urlencode") { $0.data.append(DataPiece(kind: .urlencode, text: $1)) },
        value("json") { $0.data.append(DataPiece(kind: .json, text: $1)) },
        value("form", "F") { $0.form.append(FormArgument(text: $1)) },
        value("form-string") { $0.form.append(FormArgument(text: $1, literal: true)) },
        // Output files (issue 25): kept here so the file-safety options sit in one place.
        flag("no-clobber") { $0.noClobber = $1 },
        flag("remove-on-error") { $0.removeOnError = $1 },
    ]

    private static let output: [OptionSpec] = [
        value("output", "o") { $0.outputs.append(.file($1)) },
        flag("remote-name", "O") { options, on in if on { options.outputs.append(.remoteName) } },
        flag("remote-header-name", "J") { $0.remoteHeaderName = $1 },
        // fetch never buffers output: each chunk is written as it arrives, so -N has nothing to turn off.
        flag("no-buffer", "N") { _, _ in },
        value("upload-file", "T") { $0.uploadFile = $1 },
        flag("crlf") { $0.crlf = $1 },  // -T's LFs sent as CRLF (CRLFUpload.swift)
        flag("include", "i") { $0.includeHeaders = $1 },
        value("dump-header", "D") { $0.dumpHeaderPath = $1 },
        value("write-out", "w") { options, text throws(FetchUsageError) in
            guard text.hasPrefix("@") else { options.writeOut = text; return }
            let path = String(text.dropFirst())
            guard let data = readFile(path) else { throw FetchUsageError(status: 26, description: "(26) Failed to read \(path)", hint: false) }
            // curl reads the file without its line breaks (file2string drops CR and LF): a
            // newline in the output is written `\n` in the file.
            options.writeOut = String(decoding: data.filter { $0 != 10 && $0 != 13 }, as: UTF8.self)
        },
        flag("create-dirs") { $0.createDirectories = $1 },
        value("url") { $0.urls.append($1) },
    ]

    private static let tls: [OptionSpec] = [
        value("cacert") { $0.caCertificateFile = $1 },
        flag("insecure", "k") { $0.insecure = $1 },
        value("pinnedpubkey") { $0.pinnedPublicKey = $1 },
        value("capath") { $0.caCertificateDirectory = $1 },
        value("cert", "E") { $0.clientCertificate = $1 },
        value("cert-type") { $0.clientCertificateType = $1.uppercased() },
        value("key") { $0.clientKey = $1 },
        value("key-type") { _, text throws(FetchUsageError) in
            // The key's format (PEM or DER) is detected from its content.
            guard ["PEM", "DER"].contains(text.uppercased()) else { throw FetchUsageError(description: "--key-type must be PEM or DER") }
        },
        value("pass") { $0.passphrase = $1 },
        value("crlfile") { $0.crlFile = $1 },
        flag("cert-status") { $0.requireCertificateStatus = $1 },
        value("ciphers") { $0.ciphers = $1 },
        value("engine") { options, name throws(FetchUsageError) in
            if name == "list" { throw .stopped(.engines) }  // curl reads no further (SSLEngine.swift)
            options.engine = name
        },
        value("tls13-ciphers") { $0.tls13Ciphers = $1 },
        value("curves") { $0.curves = $1 },
        // "At least TLS 1.0/1.1" is always true: Lariat never offers less than 1.2.
        flag("tlsv1", "1") { _, _ in },
        flag("tlsv1.0") { _, _ in },
        flag("tlsv1.1") { _, _ in },
        flag("tlsv1.2") { options, on in options.minimumTLSVersion = on ? "1.2" : nil },
        flag("tlsv1.3") { options, on in options.minimumTLSVersion = on ? "1.3" : nil },
        value("tls-max") { options, text throws(FetchUsageError) in
            guard ["1.2", "1.3"].contains(text) else { throw FetchUsageError(description: "--tls-max must be 1.2 or 1.3") }
            options.maximumTLSVersion = text
        },
    ]

    /// Cookies (FetchCookies.swift) and retries (FetchRetry.swift).
    private static let cookiesAndRetry: [OptionSpec] = [
        value("cookie", "b") { $0.cookies.add($1) },
        value("cookie-jar", "c") { $0.cookies.jar = $1 },
        flag("junk-session-cookies", "j") { $0.cookies.junkSessionCookies = $1 },
        value("retry") { options, text throws(FetchUsageError) in
            guard let count = Int(text), count >= 0 else { throw .notNumeric("--retry") }
            options.retry.count = count
        },
        // curl 7.88 takes whole seconds here (a fraction is a usage error, exit 2).
        value("retry-delay") { options, text throws(FetchUsageError) in
            guard let delay = Int(text), delay >= 0 else { throw .notNumeric("--retry-delay") }
            options.retry.delay = Double(delay)
        },
        value("retry-max-time") { options, text throws(FetchUsageError) in
            guard let maxTime = Int(text), maxTime >= 0 else { throw .notNumeric("--retry-max-time") }
            options.retry.maxTime = Double(maxTime)
        },
        flag("retry-connrefused") { $0.retry.connectionRefused = $1 },
        flag("retry-all-errors") { $0.retry.allErrors = $1 },
    ]

    /// curl's proxy options; see FetchProxy.swift. `--socks5`, `--socks5-hostname`, `--socks4` and
    /// `--socks4a` are `-x` with a scheme: the last of them wins.
    private static let proxy: [OptionSpec] = [
        value("proxy", "x") { options, text in
            options.proxy.proxy = text
            options.proxy.http10 = false
        },
        value("proxy1.0") { options, text in
            options.proxy.proxy = text
            options.proxy.http10 = true
        },
        value("proxy-header") { options, text in
            // `@FILE`: one header a line (curl 7.88 goes on without them when FILE is unreadable).
            guard text.hasPrefix("@") else { options.proxy.headerLines.append(text); return }
            guard let data = readFile(String(text.dropFirst())) else { return }
            options.proxy.headerLines += String(decoding: data, as: UTF8.self)
                .split(whereSeparator: { $0 == "\n" || $0 == "\r" || $0 == "\r\n" }).map(String.init)
        },
        // curl's proxy authentication switches (FetchProxyOptions.authenticationMethods): Basic
        // goes out at once; Digest and anyauth wait for the proxy's 407 and answer it.
        flag("proxy-basic") { $0.proxy.basic = $1 },
        flag("proxy-digest") { $0.proxy.digest = $1 },
        flag("proxy-anyauth") { $0.proxy.anyAuth = $1 },
        flag("socks5-basic") { $0.proxy.socks5Basic = $1 },
        flag("socks5-gssapi") { $0.proxy.socks5GSSAPI = $1 },
        value("proxy-user", "U") { $0.proxy.proxyUser = $1 },
        value("noproxy") { $0.proxy.noProxy = $1 },
        value("preproxy") { $0.proxy.preproxy = $1 },
        flag("proxytunnel", "p") { $0.proxy.tunnel = $1 },
        value("socks5") { $0.proxy.proxy = "socks5://" + $1 },
        value("socks5-hostname") { $0.proxy.proxy = "socks5h://" + $1 },
        value("socks4") { $0.proxy.proxy = "socks4://" + $1 },
        value("socks4a") { $0.proxy.proxy = "socks4a://" + $1 },
        // The origin's TLS options again, for an https:// proxy (FetchProxyTLS.swift).
        value("proxy-cacert") { $0.proxy.tls.caCertificateFile = $1 },
        value("proxy-capath") { $0.proxy.tls.caCertificateDirectory = $1 },
        flag("proxy-insecure") { $0.proxy.tls.insecure = $1 },
        value("proxy-pinnedpubkey") { $0.proxy.tls.pinnedPublicKey = $1 },
        value("proxy-cert") { $0.proxy.tls.clientCertificate = $1 },
        value("proxy-cert-type") { $0.proxy.tls.clientCertificateType = $1.uppercased() },
        value("proxy-key") { $0.proxy.tls.clientKey = $1 },
        value("proxy-key-type") { _, text throws(FetchUsageError) in
            // As --key-type: the key's format is detected from its content.
            guard ["PEM", "DER"].contains(text.uppercased()) else { throw FetchUsageError(description: "--proxy-key-type must be PEM or DER") }
        },
        value("proxy-pass") { $0.proxy.tls.passphrase = $1 },
        value("proxy-crlfile") { $0.proxy.tls.crlFile = $1 },
        value("proxy-ciphers") { $0.proxy.tls.ciphers = $1 },
        value("proxy-tls13-ciphers") { $0.proxy.tls.tls13Ciphers = $1 },
        // "At least TLS 1.0" is always true: Lariat never offers less than 1.2, to a proxy either.
        flag("proxy-tlsv1") { _, _ in },
    ]

    /// Parsed and refused (exit 2) until the Client feature behind them lands.
    private static let pendingOptions: [OptionSpec] = []

    /// `--trace`, `--trace-ascii` (Trace.swift) and `--trace-time`.
    static let trace: [OptionSpec] = [
        value("trace") { options, path in options.setTrace(path, style: .hex, name: "--trace") },
        value("trace-ascii") { options, path in options.setTrace(path, style: .ascii, name: "--trace-ascii") },
        flag("trace-time") { $0.traceTime = $1 },
        flag("xattr") { $0.xattr = $1 },
        flag("form-escape") { $0.formEscape = $1 },
    ]
}
