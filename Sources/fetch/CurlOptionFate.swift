// What fetch does with a curl 7.88 option that OptionTable does not implement. Every one of
// curl's 250 documented options has exactly one answer (CurlOptionFateTests checks the sum):
//
//   implemented  OptionTable runs it (listed by `--help`).
//   inert        accepted and without effect, as curl itself treats it for an http(s) URL: it
//                belongs to a protocol fetch does not speak (FTP, mail, TFTP, TELNET, SSH) or to
//                a feature curl 7.88 silently skips when its build lacks it (`--http2` without
//                nghttp2: the failed setopt's result is overwritten by the next one, so curl
//                speaks HTTP/1.1), or it asks for what fetch always does (`--tcp-nodelay`).
//   notBuilt     curl's own refusal when its build lacks the feature: "option --X: the installed
//                libcurl version doesn't support this", exit 2 (CURLE_FAILED_INIT), checked in
//                curl-7_88_1 src/tool_getparam.c (c-ares for --dns-*, SPNEGO/NTLM, HTTP/3,
//                alt-svc, HSTS, TLS-SRP) and against this machine's curl (`--dns-servers`).
//   custom       curl's special wording for a build without it (`--manual`,
//                `--metalink`, `--sslv2`).
//   pending      an HTTP option fetch does not implement yet: refused (exit 2) with a message
//                naming it, never silently ignored.

/// fetch's answer to one curl option outside OptionTable.
enum CurlOptionFate: Equatable, Sendable {
    /// Accepted (its value consumed), no effect on an http(s) transfer.
    case inert
    /// Accepted with curl's warning (hidden by `-s`), no effect.
    case warns(String)
    /// curl's "the installed libcurl version doesn't support this" (exit 2).
    case notBuilt
    /// curl's warning, then "is unknown" (exit 2): `--manual` in builds without it.
    case unknownAfterWarning(String)
    /// curl's error line, then "is badly used here" (exit 2): `--metalink`.
    case badUseAfterError(String)
    /// Not implemented yet: fetch's message (exit 2).
    case pending(String)

    /// The fate of `long` (without `--`), or nil when it is not one of curl's options or is in
    /// OptionTable.
    static func of(_ long: String) -> CurlOptionFate? {
        if let fate = special[long] { return fate }
        if inertOptions.contains(long) { return .inert }
        if notBuiltOptions.contains(long) { return .notBuilt }
        guard CurlOptionCatalog.byLong[long] != nil else { return nil }
        return .pending("not supported yet")
    }

    /// Options of protocols fetch does not speak, and no-ops for fetch (see the file comment).
    static let inertOptions: Set<String> = [
        // FTP, SFTP, SCP, SSH
        "append", "use-ascii", "list-only", "disable-eprt", "disable-epsv", "ftp-account", "ftp-alternative-to-user",
        "ftp-create-dirs", "ftp-method", "ftp-pasv", "ftp-port", "ftp-pret", "ftp-skip-pasv-ip", "ftp-ssl-ccc",
        "ftp-ssl-ccc-mode", "ftp-ssl-control", "quote", "compressed-ssh", "hostpubmd5", "hostpubsha256", "pubkey",
        "ssl", "ssl-reqd",
        // IMAP, POP3, SMTP
        "login-options", "mail-auth", "mail-from", "mail-rcpt", "mail-rcpt-allowfails", "sasl-authzid", "sasl-ir",
        // TELNET, TFTP
        "telnet-option", "tftp-blksize", "tftp-no-options",
        // GSS-API settings: without SPNEGO nothing uses them (curl parses them unchecked).
        "delegation", "service-name", "proxy-service-name", "socks5-gssapi-nec", "socks5-gssapi-service",
        // curl 7.88 without nghttp2: the version setopt fails and the transfer is HTTP/1.1.
        "http2", "http2-prior-knowledge",
        // No effect in curl 7.88 with OpenSSL (random-file, egd-file: no-ops; false-start: not
        // built; NPN: removed; allow-beast: TLS 1.0 only, fetch speaks 1.2+; revoke and
        // auto-client-cert: Schannel only).
        "random-file", "egd-file", "false-start", "no-npn", "ssl-allow-beast", "proxy-ssl-allow-beast",
        "ssl-no-revoke", "ssl-revoke-best-effort", "ssl-auto-client-cert", "proxy-ssl-auto-client-cert",
        // What fetch always does: TCP_NODELAY is set on every socket (EventLoop Socket+Connect),
        // curl's default too; no terminal styling (curl's output to a pipe).
        "tcp-nodelay", "styled-output",
        // TCP keep-alive probes and TLS session reuse: Lariat sets no SO_KEEPALIVE (what
        // --no-keepalive asks for; --keepalive-time only tunes probes fetch never sends) and
        // offers ALPN http/1.1 only; a one-shot fetch reuses no TLS session across runs.
        "no-keepalive", "keepalive-time", "no-alpn", "no-sessionid",
    ]

    /// Switches curl 7.88 accepts beyond its documented names (its `aliases` table: `--no-X`
    /// is looked up as `X`), all inert for fetch.
    static let aliases = ["epsv", "eprt", "npn", "alpn", "ftp-ssl", "ftp-ssl-reqd", "sessionid", "keepalive"]

    /// Features fetch's build lacks, refused as curl refuses them (see the file comment).
    static let notBuiltOptions: Set<String> = [
        "dns-servers", "dns-interface", "dns-ipv4-addr", "dns-ipv6-addr",  // c-ares
        "negotiate", "krb", "proxy-negotiate",  // SPNEGO / GSS-API
        "ntlm", "ntlm-wb", "proxy-ntlm",  // NTLM
        "http3", "http3-only",  // HTTP/3
        "alt-svc", "hsts",
        "tlsuser", "tlspassword", "tlsauthtype", "proxy-tlsuser", "proxy-tlspassword", "proxy-tlsauthtype",  // TLS-SRP
    ]

    /// curl 7.88's own wording for these.
    static let special: [String: CurlOptionFate] = [
        "manual": .unknownAfterWarning("built-in manual was disabled at build-time!"),
        "metalink": .badUseAfterError("--metalink is disabled"),
        "sslv2": .warns("Ignores instruction to use SSLv2"),
        "sslv3": .warns("Ignores instruction to use SSLv3"),
    ]

    /// Applies the fate of option `name` (as written: `--x` or `-x`) to `options`.
    ///
    /// - Throws: ``FetchUsageError`` for the refusing fates.
    func apply(_ name: String, to options: inout FetchOptions) throws(FetchUsageError) {
        switch self {
        case .inert:
            return
        case .warns(let text):
            if !options.silent { options.parseWarnings.append("Warning: \(text)") }
        case .notBuilt:
            throw FetchUsageError(description: "option \(name): the installed libcurl version doesn't support this")
        case .unknownAfterWarning(let text):
            var error = FetchUsageError.unknown(name)
            if !options.silent { error.preamble = ["Warning: \(text)"] }
            throw error
        case .badUseAfterError(let text):
            var error = FetchUsageError(description: "option \(name): is badly used here")
            error.preamble = ["fetch: \(text)"]
            throw error
        case .pending(let reason):
            options.unsupported.append("\(name): \(reason)")
        }
    }
}
