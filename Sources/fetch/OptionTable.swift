// The options fetch knows, spelled as curl spells them: long name, short letter, and what each
// does to the option model. ArgumentWalker finds them; nothing here reads argv.

/// One option of the table.
struct OptionSpec: Sendable {
    /// What the option does.
    enum Action: Sendable {
        /// A switch; `--no-NAME` passes `false`.
        case flag(@Sendable (inout FetchOptions, Bool) -> Void)
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
    /// Finds a long option (without the `--`).
    static func long(_ name: String) -> OptionSpec? { byLong[name] }

    /// Finds a short option.
    static func short(_ letter: Character) -> OptionSpec? { byShort[letter] }

    private static let byLong: [String: OptionSpec] = Dictionary(all.map { ($0.long, $0) }, uniquingKeysWith: { first, _ in first })
    private static let byShort: [Character: OptionSpec] = Dictionary(
        all.compactMap { spec in spec.short.map { ($0, spec) } }, uniquingKeysWith: { first, _ in first })

    private static func flag(_ long: String, _ short: Character? = nil, _ apply: @escaping @Sendable (inout FetchOptions, Bool) -> Void) -> OptionSpec {
        OptionSpec(long: long, short: short, action: .flag(apply))
    }

    private static func value(
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
    private static func seconds(_ option: String, _ text: String) throws(FetchUsageError) -> Double {
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

    private static let all: [OptionSpec] = transfer + body + output + tls + pendingOptions

    private static let transfer: [OptionSpec] = [
        value("request", "X") { $0.method = $1 },
        value("header", "H") { $0.headerLines.append($1) },
        value("user-agent", "A") { $0.userAgent = $1 },
        value("referer", "e") { options, text in
            options.referer = text.hasSuffix(";auto") ? String(text.dropLast(5)) : text
        },
        flag("get", "G") { $0.dataInQuery = $1 },
        flag("head", "I") { $0.headOnly = $1 },
        flag("fail", "f") { options, on in options.failMode = on ? .withoutBody : .never },
        flag("fail-with-body") { options, on in options.failMode = on ? .withBody : .never },
        flag("silent", "s") { $0.silent = $1 },
        flag("show-error", "S") { $0.showError = $1 },
        flag("verbose", "v") { $0.verbose = $1 },
        flag("ipv4", "4") { options, on in options.ipVersion = on ? .v4 : .any },
        flag("ipv6", "6") { options, on in options.ipVersion = on ? .v6 : .any },
        flag("http1.1") { _, _ in },  // the only version fetch speaks
        flag("http1.0", "0") { options, on in
            if on { options.unsupported.append("-0, --http1.0: fetch speaks HTTP/1.1 only") }
        },
        flag("http2") { options, on in if on { options.unsupported.append("--http2: fetch speaks HTTP/1.1 only (use --http1.1)") } },
        flag("http2-prior-knowledge") { options, on in
            if on { options.unsupported.append("--http2-prior-knowledge: fetch speaks HTTP/1.1 only (use --http1.1)") }
        },
        flag("http3") { options, on in if on { options.unsupported.append("--http3: fetch speaks HTTP/1.1 only (use --http1.1)") } },
        value("max-time", "m") { options, text throws(FetchUsageError) in options.maxTime = try seconds("-m", text) },
        value("connect-timeout") { options, text throws(FetchUsageError) in options.connectTimeout = try seconds("--connect-timeout", text) },
        value("limit-rate") { options, text throws(FetchUsageError) in options.limitRate = try size("--limit-rate", text) },
        value("max-filesize") { options, text throws(FetchUsageError) in options.maxFileSize = try size("--max-filesize", text) },
        value("resolve") { $0.resolveEntries.append($1) },
        value("unix-socket") { $0.unixSocket = .path($1) },
        value("abstract-unix-socket") { $0.unixSocket = .abstract($1) },
        flag("progress-bar", "#") { _, _ in },  // fetch draws no progress meter at all
        flag("no-progress-meter") { _, _ in },
        flag("disable", "q") { _, _ in },       // fetch reads no default config file anyway
        OptionSpec(long: "help", short: "h", action: .stop(.help)),
        OptionSpec(long: "version", short: "V", action: .stop(.version)),
    ]

    private static let body: [OptionSpec] = [
        value("data", "d") { $0.data.append(DataPiece(kind: .ascii, text: $1)) },
        value("data-ascii") { $0.data.append(DataPiece(kind: .ascii, text: $1)) },
        value("data-raw") { $0.data.append(DataPiece(kind: .raw, text: $1)) },
        value("data-binary") { $0.data.append(DataPiece(kind: .binary, text: $1)) },
        value("data-urlencode") { $0.data.append(DataPiece(kind: .urlencode, text: $1)) },
        value("json") { $0.data.append(DataPiece(kind: .json, text: $1)) },
        value("form", "F") { $0.form.append($1) },
    ]

    private static let output: [OptionSpec] = [
        value("output", "o") { $0.outputs.append(.file($1)) },
        flag("remote-name", "O") { options, on in if on { options.outputs.append(.remoteName) } },
        flag("remote-header-name", "J") { $0.remoteHeaderName = $1 },
        // fetch never buffers output: each chunk is written as it arrives, so -N has nothing to turn off.
        flag("no-buffer", "N") { _, _ in },
        value("upload-file", "T") { $0.uploadFile = $1 },
        flag("include", "i") { $0.includeHeaders = $1 },
        value("dump-header", "D") { $0.dumpHeaderPath = $1 },
        value("write-out", "w") { options, text throws(FetchUsageError) in
            guard text.hasPrefix("@") else { options.writeOut = text; return }
            let path = String(text.dropFirst())
            guard let data = readFile(path) else { throw FetchUsageError(status: 26, description: "(26) Failed to read \(path)", hint: false) }
            options.writeOut = String(decoding: data, as: UTF8.self)
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
        value("tls13-ciphers") { $0.tls13Ciphers = $1 },
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

    /// Parsed and refused (exit 2) until the Client feature behind them lands.
    private static let pendingOptions: [OptionSpec] = [
        pending("location", "L", takesValue: false, because: "not supported yet (Client does not follow redirects)"),
        pending("location-trusted", takesValue: false, because: "not supported yet (Client does not follow redirects)"),
        pending("max-redirs", takesValue: true, because: "not supported yet (Client does not follow redirects)"),
        pending("user", "u", takesValue: true, because: "not supported yet (put user:password in the URL)"),
        pending("cookie", "b", takesValue: true, because: "not supported yet (no cookie engine in Client)"),
        pending("cookie-jar", "c", takesValue: true, because: "not supported yet (no cookie engine in Client)"),
        pending("retry", takesValue: true, because: "not supported yet (no retry in fetch)"),
        pending("retry-connrefused", takesValue: false, because: "not supported yet (no retry in fetch)"),
        pending("retry-delay", takesValue: true, because: "not supported yet (no retry in fetch)"),
        pending("retry-max-time", takesValue: true, because: "not supported yet (no retry in fetch)"),
        pending("retry-all-errors", takesValue: false, because: "not supported yet (no retry in fetch)"),
        pending("compressed", takesValue: false, because: "not supported yet (no content decoding in Client)"),
        pending("continue-at", "C", takesValue: true, because: "not supported yet (no resumed downloads)"),
        pending("trace", takesValue: true, because: "not supported yet (use -v)"),
        pending("trace-ascii", takesValue: true, because: "not supported yet (use -v)"),
    ]
}
