// --libcurl FILE: where curl writes the C program of its command line, fetch writes the Swift
// program, on Client's Alamofire API, that sends the same requests: each planned request's
// method, URL, headers (curl's defaults and -H edits included) and body, and the session
// settings fetch gives them (redirects, time limits, TLS roots, proxy, retries). What only
// shapes fetch's own output (-s, -w, the meter, -o naming) is left to the program's own code;
// options with no counterpart in it are listed in a comment at the top, never dropped silently.
import Client
import FoundationEssentials

/// The Swift source of a run.
enum SwiftProgram {
    /// The program for `groups` (each `--next` group with the requests planned for it), written
    /// from `arguments` (fetch's own, for the header comment).
    static func source(arguments: [String], groups: [(options: FetchOptions, requests: [PlannedRequest?])]) -> String {
        var lines = [
            "// Written by `fetch --libcurl`: this command line as a Swift program on Client, Lariat's",
            "// Alamofire API (build it in a package that depends on Lariat's `Client` library).",
            "//   " + commandLine(arguments),
        ]
        let unexpressed = groups.flatMap { unexpressedOptions($0.options) }
        if !unexpressed.isEmpty {
            lines.append("// Not expressed below: " + unexpressed.joined(separator: ", ") + ".")
        }
        lines += ["import Client", "import Foundation", "", "var exitStatus: Int32 = 0"]
        for (index, group) in groups.enumerated() {
            lines += [""] + session(group.options, name: "session\(index + 1)")
            for request in group.requests.compactMap({ $0 }) {
                lines += [""] + transfer(request, options: group.options, session: "session\(index + 1)")
            }
        }
        lines += ["", "exit(exitStatus)", ""]
        return lines.joined(separator: "\n")
    }

    // MARK: The session

    /// The session one group's requests go through.
    static func session(_ options: FetchOptions, name: String) -> [String] {
        var lines = [
            "// The session: curl's headers only (no Alamofire defaults), bodies as received.",
            "let \(name)Configuration = URLSessionConfiguration.default",
            "\(name)Configuration.headers = HTTPHeaders()",
            "\(name)Configuration.contentDecoding = \(options.compressed ? ".automatic" : ".disabled")",
        ]
        if let maxTime = options.maxTime {
            lines.append("\(name)Configuration.timeoutIntervalForResource = \(maxTime)  // --max-time")
            lines.append("\(name)Configuration.timeoutIntervalForRequest = \(maxTime)")
        }
        if let connect = options.connectTimeout {
            lines.append("\(name)Configuration.timeoutIntervalForConnect = \(connect)  // --connect-timeout")
        }
        if options.followRedirects {
            let limit = options.maxRedirects < 0 ? "Int.max" : String(options.maxRedirects)
            lines.append("\(name)Configuration.httpMaximumRedirects = \(limit)  // --max-redirs")
        }
        if let proxy = options.proxy.proxy, !proxy.isEmpty {
            let proxyTLS = proxyTLSLines(options.proxy.tls)
            if proxy.lowercased().hasPrefix("https://"), !proxyTLS.isEmpty {
                lines.append("var \(name)Proxy = try ProxyServer(parsing: \(literal(proxy)))  // -x: TLS to the proxy")
                lines += ["\(name)Proxy.tlsOptions = ProxyTLSOptions(configuration: {", "    var tls = TLSConfiguration()"]
                    + proxyTLS.map { "    " + $0 } + ["    return tls", "}())"]
                lines.append("\(name)Configuration.proxy = ProxyConfiguration(all: \(name)Proxy)")
            } else {
                lines.append("\(name)Configuration.proxy = ProxyConfiguration(all: try ProxyServer(parsing: \(literal(proxy))))  // -x")
            }
        }
        var tls: [String] = []
        if let file = options.caCertificateFile { tls.append("tls.trustRoots = .file(\(literal(file)))  // --cacert") }
        if let directory = options.caCertificateDirectory { tls.append("tls.trustRoots = .directory(\(literal(directory)))  // --capath") }
        if options.insecure { tls.append("tls.verification = .none  // -k: the server's certificate is NOT verified") }
        if tls.isEmpty {
            lines.append("let \(name) = Session(configuration: \(name)Configuration)")
        } else {
            lines += ["let \(name)TLS: TLSConfiguration = {", "    var tls = TLSConfiguration()"] + tls.map { "    " + $0 } + ["    return tls", "}()"]
            lines.append("let \(name) = Session(configuration: \(name)Configuration, tlsConfiguration: \(name)TLS)")
        }
        return lines
    }

    /// The statements that set up an HTTPS proxy's TLS configuration `tls`.
    static func proxyTLSLines(_ options: FetchProxyTLSOptions) -> [String] {
        var tls: [String] = []
        if let file = options.caCertificateFile { tls.append("tls.trustRoots = .file(\(literal(file)))  // --proxy-cacert") }
        if let directory = options.caCertificateDirectory { tls.append("tls.trustRoots = .directory(\(literal(directory)))  // --proxy-capath") }
        if options.insecure { tls.append("tls.verification = .none  // --proxy-insecure: the proxy's certificate is NOT verified") }
        return tls
    }

    // MARK: One transfer

    /// One request, sent and its outcome written as fetch writes it (body to the `-o` file or
    /// standard output; `-i`/`-I` heads first; `-f` statuses ≥ 400 as failures).
    static func transfer(_ request: PlannedRequest, options: FetchOptions, session: String) -> [String] {
        var lines = ["// \(request.method) \(request.url)", "do {"]
        let method = knownMethods[request.method].map { ".\($0)" } ?? "HTTPMethod(rawValue: \(literal(request.method)))"
        let binding = request.body == nil ? "let" : "var"
        lines.append("    \(binding) request = try URLRequest(url: \(literal(request.url)), method: \(method), headers: [")
        lines += request.headers.map { "        " + header($0) + "," }
        lines.append("    ])")
        if let body = request.body { lines.append("    request.httpBody = " + data(body)) }
        if request.bodyFile != nil {
            lines.append("    // The -F body is larger than memory allows here: build it with MultipartFormData and")
            lines.append("    // session.upload(multipartFormData:with:) (fetch streamed it from a temporary file).")
        }
        var call = "\(session).request(request"
        if options.retry.count > 0 { call += ", interceptor: RetryPolicy(retryLimit: \(options.retry.count))" }
        call += ")"
        var modifiers: [String] = []
        if !options.followRedirects { modifiers.append(".redirect(using: .doNotFollow)  // no -L") }
        if let credentials = request.challengeCredentials {
            let (user, password) = split(credentials)
            modifiers.append(".authenticate(username: \(literal(user)), password: \(literal(password)))  // answers a 401 challenge")
        }
        if options.failMode != .never { modifiers.append(".validate(statusCode: 100..<400)  // -f") }
        lines.append("    let response = await \(call)")
        lines += modifiers.map { "        " + $0 }
        lines.append("        .serializingData(emptyResponseCodes: Set(100..<600), emptyRequestMethods: [.head])  // an empty body is a body")
        lines.append("        .response")
        if options.includeHeaders || options.headOnly {
            lines += [
                "    if let head = response.response {",
                "        var text = \"HTTP/1.1 \\(head.statusCode)\\r\\n\"",
                "        for field in head.headers { text += \"\\(field.name): \\(field.value)\\r\\n\" }",
                "        FileHandle.standardOutput.write(Data((text + \"\\r\\n\").utf8))",
                "    }",
            ]
        }
        let output = options.outputs.first.flatMap { output -> String? in
            if case .file(let path) = output, path != "-" { return path }
            return nil
        }
        lines.append("    switch response.result {")
        if options.headOnly {
            lines.append("    case .success: break")
        } else if let output {
            lines.append("    case .success(let body): try body.write(to: URL(fileURLWithPath: \(literal(output))))  // -o")
        } else {
            lines.append("    case .success(let body): FileHandle.standardOutput.write(body)")
        }
        lines += [
            "    case .failure(let error):",
            "        FileHandle.standardError.write(Data(\"\\(error)\\n\".utf8))",
            "        exitStatus = 1",
            "    }",
            "} catch {",
            "    FileHandle.standardError.write(Data(\"\\(error)\\n\".utf8))",
            "    exitStatus = 1",
            "}",
        ]
        return lines
    }

    // MARK: Pieces

    /// The methods `HTTPMethod` names.
    static let knownMethods: [String: String] = [
        "CONNECT": "connect", "DELETE": "delete", "GET": "get", "HEAD": "head", "OPTIONS": "options",
        "PATCH": "patch", "POST": "post", "PUT": "put", "QUERY": "query", "TRACE": "trace",
    ]

    /// One header as an `HTTPHeader` expression: Alamofire's named constructors where one fits.
    static func header(_ field: HeaderField) -> String {
        switch field.name.lowercased() {
        case "user-agent": return ".userAgent(\(literal(field.value)))"
        case "accept": return ".accept(\(literal(field.value)))"
        case "content-type": return ".contentType(\(literal(field.value)))"
        case "authorization":
            if field.value.hasPrefix("Basic "), let decoded = Data(base64Encoded: String(field.value.dropFirst(6))),
               let credentials = String(data: decoded, encoding: .utf8), credentials.firstIndex(of: ":") != nil {
                let (user, password) = split(credentials)
                return ".authorization(username: \(literal(user)), password: \(literal(password)))"
            }
            if field.value.hasPrefix("Bearer ") { return ".authorization(bearerToken: \(literal(String(field.value.dropFirst(7)))))" }
            return "HTTPHeader(name: \(literal(field.name)), value: \(literal(field.value)))"
        default:
            return "HTTPHeader(name: \(literal(field.name)), value: \(literal(field.value)))"
        }
    }

    /// A body as a `Data` expression: its text when it is UTF-8 without NUL, else Base64.
    static func data(_ body: Data) -> String {
        if !body.contains(0), let text = String(data: body, encoding: .utf8) { return "Data(\(literal(text)).utf8)" }
        return "Data(base64Encoded: \"\(body.base64EncodedString())\")!"
    }

    /// `user:password` split at the first colon.
    static func split(_ credentials: String) -> (String, String) {
        guard let colon = credentials.firstIndex(of: ":") else { return (credentials, "") }
        return (String(credentials[..<colon]), String(credentials[credentials.index(after: colon)...]))
    }

    /// A Swift string literal for `text`: quotes, backslashes, `\(` and control characters escaped.
    static func literal(_ text: String) -> String {
        var out = "\""
        for scalar in text.unicodeScalars {
            switch scalar {
            case "\"": out += "\\\""
            case "\\": out += "\\\\"
            case "\n": out += "\\n"
            case "\r": out += "\\r"
            case "\t": out += "\\t"
            case _ where scalar.value < 0x20 || scalar.value == 0x7F || (0x80...0x9F).contains(scalar.value)
                || scalar.properties.generalCategory == .format || scalar.properties.generalCategory == .lineSeparator
                || scalar.properties.generalCategory == .paragraphSeparator:
                out += "\\u{\(String(scalar.value, radix: 16))}"
            default: out.unicodeScalars.append(scalar)
            }
        }
        return out + "\""
    }

    /// The command line for the header comment, one argument per shell word.
    static func commandLine(_ arguments: [String]) -> String {
        (["fetch"] + arguments).map { argument in
            let plain = !argument.isEmpty && argument.unicodeScalars.allSatisfy {
                ($0.value < 0x80 && ($0.properties.isAlphabetic || ("0"..."9").contains($0))) || "-_./:=@%+,".unicodeScalars.contains($0)
            }
            if plain { return argument }
            // In single quotes; a quote inside becomes '\''. Control characters (even a newline,
            // which would end the comment) are written as \u{…}.
            let escaped = argument.unicodeScalars.map { scalar -> String in
                if scalar == "'" { return "'\\''" }
                if scalar.value < 0x20 || scalar.value == 0x7F { return "\\u{\(String(scalar.value, radix: 16))}" }
                return String(scalar)
            }.joined()
            return "'" + escaped + "'"
        }.joined(separator: " ")
    }

    /// The options of a group that change what is sent or how, and that the program does not
    /// express (each named as curl spells it).
    static func unexpressedOptions(_ options: FetchOptions) -> [String] {
        var names: [String] = []
        func check(_ condition: Bool, _ name: String) { if condition { names.append(name) } }
        check(options.locationTrusted, "--location-trusted")
        check(!options.resolveEntries.isEmpty || !options.connectToEntries.isEmpty, "--resolve/--connect-to")
        check(options.unixSocket != nil, "--unix-socket")
        // The program carries this run's signature headers, which AWS accepts for minutes only.
        check(options.extras.awsSigV4 != nil, "--aws-sigv4")
        check(options.extras.dohURL != nil, "--doh-url")
        check(options.proxy.proxyUser != nil, "--proxy-user")
        check(options.proxy.noProxy != nil, "--noproxy")
        check(options.proxy.tunnel, "--proxytunnel")
        let proxyTLS = options.proxy.tls
        check(proxyTLS.pinnedPublicKey != nil, "--proxy-pinnedpubkey")
        check(proxyTLS.clientCertificate != nil, "--proxy-cert")
        check(proxyTLS.crlFile != nil, "--proxy-crlfile")
        check(proxyTLS.ciphers != nil || proxyTLS.tls13Ciphers != nil, "--proxy-ciphers/--proxy-tls13-ciphers")
        check(options.pinnedPublicKey != nil, "--pinnedpubkey")
        check(options.clientCertificate != nil, "--cert")
        check(options.crlFile != nil, "--crlfile")
        check(options.ciphers != nil || options.tls13Ciphers != nil, "--ciphers/--tls13-ciphers")
        check(options.minimumTLSVersion != nil || options.maximumTLSVersion != nil, "--tlsv1.x/--tls-max")
        check(options.requireCertificateStatus, "--cert-status")
        check(options.ipVersion != .any, "-4/-6")
        check(options.limitRate != nil, "--limit-rate")
        check(options.maxFileSize != nil, "--max-filesize")
        check(options.continueAt != nil, "-C")
        check(options.uploadFile != nil, "-T")
        check(options.cookies != FetchCookieOptions(), "-b/-c/-j")
        check(options.retry.delay != nil, "--retry-delay (RetryPolicy's backoff is used)")
        check(options.extras.parallel, "-Z")
        check(options.extras.rateInterval != nil, "--rate")
        check(options.extras.speedLimit != nil || options.extras.speedTime != nil, "-Y/-y")
        check(!options.extras.postRedirects.isEmpty, "--post301/302/303")
        check(options.extras.protocols != nil || options.extras.redirectProtocols != nil, "--proto/--proto-redir")
        check(options.extras.timeCondition != nil, "-z")
        check(options.extras.etagCompare != nil || options.extras.etagSave != nil, "--etag-compare/--etag-save")
        check(options.outputs.count > 1 || options.outputs.contains(.remoteName), "-O and -o past the first URL")
        return names
    }
}
