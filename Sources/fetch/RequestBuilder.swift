// From the option model and one URL to the request curl would send: the URL as curl reads it
// (http:// assumed, user:password@ moved into Basic auth, -G data in the query), the method,
// the headers (curl's defaults, then -H edits) and the body.
import Client
import FoundationEssentials
import Transport

/// A request ready to hand to `Session`, built without any I/O but file reads.
struct PlannedRequest: Equatable {
    /// The URL to send to (no user info).
    var url: String
    /// The method.
    var method: String
    /// The headers in order.
    var headers: [HeaderField]
    /// The body, if any.
    var body: Data?
    /// A `-F` body too large for memory: a private temporary file (Client's multipart temporary
    /// directory) sent from disk, removed by ``removeBodyFile()`` after the transfer.
    var bodyFile: String?
    /// `user:password` to answer a 401 challenge with (`--digest`); Basic credentials go out
    /// at once in `headers` instead.
    var challengeCredentials: String?
    /// `--aws-sigv4`: what each redirect hop is signed with again (curl signs every request).
    var awsSigning: AWSSigV4.Context?
}

extension PlannedRequest {
    /// Removes ``bodyFile`` and its private directory.
    func removeBodyFile() {
        guard let bodyFile else { return }
        MultipartFormData.removeTemporaryFile(URL(fileURLWithPath: bodyFile), fileManager: .default)
    }
}

/// One header.
struct HeaderField: Equatable {
    /// The name as given.
    var name: String
    /// The value.
    var value: String
}

/// Why a request cannot be built, with curl's status.
struct TransferError: Error, Equatable {
    /// curl's exit status.
    var status: Int32
    /// The message (fetch prints `fetch: (status) message`).
    var message: String
}

/// Builds ``PlannedRequest``s.
struct RequestBuilder {
    /// The User-Agent fetch sends unless `-A` or `-H` says otherwise.
    static let userAgent = "fetch/\(FetchVersion.number)"
    /// Reads files for `-d @file`, `-F` and `-H @file`.
    var body = BodyBuilder()
    /// The multipart boundary: curl's shape, random per run (fixed in tests).
    var boundary = FormParts.curlBoundary()
    /// `-F` bodies larger than this are written to a temporary file and streamed from it.
    var formMemoryThreshold = MultipartFormData.encodingMemoryThreshold

    /// The request for `rawURL` under `options`.
    func request(_ rawURL: String, options: FetchOptions) throws(TransferError) -> PlannedRequest {
        var (url, credentials) = try Self.normalize(RequestExtras.withDefaultScheme(rawURL, options.extras))
        url = try RequestExtras.adjust(url, hadUserInfo: credentials != nil, options: options)
        // curl: -u wins over the URL's user info; `-u user` without `:` has an empty password.
        if let user = options.user { credentials = user.contains(":") ? user : user + ":" }
        // .netrc: only without -u, and for a URL `user@` only that login's password.
        if options.user == nil, options.extras.netrc != .ignored, credentials == nil || credentials!.hasSuffix(":"),
           let netrc = Netrc.load(options.extras),
           let found = netrc.credentials(host: TransferErrors.hostAndPort(url).0, user: credentials.map { String($0.dropLast()) }) {
            credentials = found
        }
        var headers: [HeaderField] = [HeaderField(name: "User-Agent", value: options.userAgent ?? Self.userAgent), HeaderField(name: "Accept", value: "*/*")]
        var challengeCredentials: String?
        let signsAWS = options.extras.awsSigV4 != nil && credentials != nil
        if signsAWS {
            // --aws-sigv4 is then curl's only method: the signature goes out below.
        } else if let credentials, !options.authMethods.isPreemptiveBasic {
            challengeCredentials = credentials
        } else if let credentials {
            headers.insert(HeaderField(name: "Authorization", value: "Basic " + Data(credentials.utf8).base64EncodedString()), at: 0)
        }
        // curl's --compressed asks for every coding its build decodes; fetch's are Client's.
        if options.compressed { headers.append(HeaderField(name: "Accept-Encoding", value: "deflate, gzip")) }
        if let referer = options.referer { headers.append(HeaderField(name: "Referer", value: referer)) }
        var method = options.headOnly ? "HEAD" : "GET"
        var payload: Data?
        var bodyFile: String?
        let hasData = !options.data.isEmpty
        // -d with -F, or -I with a body, never get here: ArgumentWalker.checkMethods refuses them.
        if hasData {
            let data: Data
            do { data = try body.data(options.data) } catch { throw TransferError(status: 26, message: "Failed to open/read local data from file/application (\(error.path))") }
            if options.dataInQuery {
                let separator = url.contains("?") ? "&" : "?"
                let fragmentStart = url.firstIndex(of: "#") ?? url.endIndex
                url = String(url[..<fragmentStart]) + separator + RequestExtras.appendedQuery(String(decoding: data, as: UTF8.self))
            } else {
                method = "POST"
                payload = data
                if options.data.contains(where: { $0.kind == .json }) {
                    headers.append(HeaderField(name: "Content-Type", value: "application/json"))
                    // curl's --json also asks for JSON back (the Accept field, wherever -u put it).
                    if let accept = headers.firstIndex(where: { $0.name == "Accept" }) { headers[accept].value = "application/json" }
                } else {
                    headers.append(HeaderField(name: "Content-Type", value: "application/x-www-form-urlencoded"))
                }
            }
        } else if !options.form.isEmpty {
            let form: MultipartFormData
            do { form = try FormParts.form(options.form, boundary: boundary, body: body, escaping: options.formEscape ? .backslash : .percent) } catch {
                switch error {
                case .malformed(let spec): throw TransferError(status: 2, message: "Illegally formatted input field: \(spec)")
                case .unreadable(let path): throw TransferError(status: 26, message: "Failed to open/read local data from file/application (\(path))")
                }
            }
            (payload, bodyFile) = try encode(form)
            method = "POST"
            headers.append(HeaderField(name: "Content-Type", value: form.contentType))
        }
        headers += try RequestExtras.headers(options, hasCredentials: credentials != nil)
        if let explicit = options.method { method = explicit }
        let lines = try expand(options.headerLines)
        headers = apply(expanded: lines, to: headers)
        headers = options.extras.framing.addingTE(to: headers, headerLines: options.headerLines)
        if signsAWS, let spec = options.extras.awsSigV4, let credentials {
            // -d data only: curl hashes its postfields, an empty body for -F and -T.
            let signed = options.data.isEmpty || options.dataInQuery ? [] : Array(payload ?? Data())
            let context = AWSSigV4.Context(spec: spec, credentials: credentials, lines: lines, payload: signed)
            headers.insert(contentsOf: try context.headers(url: url, method: method), at: 0)
            return PlannedRequest(url: url, method: method, headers: headers, body: payload, bodyFile: bodyFile, awsSigning: context)
        }
        return PlannedRequest(url: url, method: method, headers: headers, body: payload, bodyFile: bodyFile, challengeCredentials: challengeCredentials)
    }

    /// The form's bytes in memory, or above ``formMemoryThreshold`` the path of a private
    /// temporary file holding them.
    private func encode(_ form: MultipartFormData) throws(TransferError) -> (Data?, String?) {
        let failure = TransferError(status: 26, message: "Failed to open/read local data from file/application")
        guard form.encodedLength > formMemoryThreshold else {
            do { return (try form.encode(), nil) } catch { throw failure }
        }
        do {
            let file = try MultipartFormData.makeTemporaryFileURL(in: FileManager.default.temporaryDirectory)
            do {
                try form.writeEncodedData(to: file)
            } catch {
                MultipartFormData.removeTemporaryFile(file, fileManager: .default)
                throw error
            }
            return (nil, file.path)
        } catch {
            throw failure
        }
    }

    /// curl's `-H` rules: `Name: value` replaces fetch's own header of that name (several `-H`
    /// of one name are all sent), `Name:` removes it, `Name;` sends it empty, `@file` reads lines
    /// (ended by LF, CR or CRLF: in Swift `"\r\n"` is one Character, equal to neither).
    func edit(_ defaults: [HeaderField], with lines: [String]) throws(TransferError) -> [HeaderField] {
        apply(expanded: try expand(lines), to: defaults)
    }

    /// The `-H` lines with each `@file` replaced by the file's lines.
    func expand(_ lines: [String]) throws(TransferError) -> [String] {
        var expanded: [String] = []
        for line in lines {
            if line.hasPrefix("@") {
                guard let text = body.read(String(line.dropFirst())) else {
                    throw TransferError(status: 26, message: "Failed to open \(line.dropFirst())")
                }
                expanded += String(decoding: text, as: UTF8.self).split(whereSeparator: { $0 == "\n" || $0 == "\r" || $0 == "\r\n" }).map(String.init)
            } else {
                expanded.append(line)
            }
        }
        return expanded
    }

    /// `edit(_:with:)` for lines already expanded.
    func apply(expanded: [String], to defaults: [HeaderField]) -> [HeaderField] {
        var own = defaults
        var custom: [HeaderField] = []
        for line in expanded {
            if let colon = line.firstIndex(of: ":") {
                let name = String(line[..<colon]).trimmed
                let value = line[line.index(after: colon)...].trimmed
                own.removeAll { $0.name.lowercased() == name.lowercased() }
                if !value.isEmpty { custom.append(HeaderField(name: name, value: value)) }
            } else if line.hasSuffix(";") {
                let name = String(line.dropLast()).trimmed
                own.removeAll { $0.name.lowercased() == name.lowercased() }
                custom.append(HeaderField(name: name, value: ""))
            }
            // curl ignores a line with neither `:` nor a trailing `;`.
        }
        return own + custom
    }

    /// curl's reading of a URL: `http://` when no scheme is given, only http, https, ws and wss
    /// (status 1 for others), user info taken out (returned as `user:password`, decoded).
    static func normalize(_ raw: String) throws(TransferError) -> (url: String, credentials: String?) {
        var url = raw
        if url.firstOccurrence(of: "://") == nil { url = "http://" + url }
        let schemeEnd = url.firstOccurrence(of: "://")!
        let scheme = url[..<schemeEnd.lowerBound].lowercased()
        // ws and wss: Lariat's own WebSocket transfer (WebSocketTransfer.swift).
        guard scheme == "http" || scheme == "https" || scheme == "ws" || scheme == "wss" else {
            throw TransferError(status: 1, message: "Protocol \"\(url[..<schemeEnd.lowerBound])\" not supported")
        }
        let authorityStart = schemeEnd.upperBound
        let authorityEnd = url[authorityStart...].firstIndex(where: { $0 == "/" || $0 == "?" || $0 == "#" }) ?? url.endIndex
        let authority = url[authorityStart..<authorityEnd]
        var credentials: String?
        if let at = authority.lastIndex(of: "@") {
            let info = authority[..<at]
            let user: Substring
            let password: Substring
            if let colon = info.firstIndex(of: ":") {
                user = info[..<colon]
                password = info[info.index(after: colon)...]
            } else {
                user = info
                password = ""
            }
            credentials = percentDecoded(user) + ":" + percentDecoded(password)
            url = String(url[..<authorityStart]) + String(authority[authority.index(after: at)...]) + String(url[authorityEnd...])
        }
        let host = url[authorityStart...].prefix(while: { $0 != "/" && $0 != "?" && $0 != "#" && $0 != ":" })
        guard !host.isEmpty || url[authorityStart...].hasPrefix("[") else {
            throw TransferError(status: 3, message: "URL using bad/illegal format or missing URL")
        }
        return (url, credentials)
    }
}

extension StringProtocol {
    /// The text without leading and trailing spaces and tabs.
    var trimmed: String {
        String(drop(while: { $0 == " " || $0 == "\t" }).reversed().drop(while: { $0 == " " || $0 == "\t" }).reversed())
    }
}

/// `%XX` sequences decoded (invalid ones kept as written).
func percentDecoded(_ text: Substring) -> String {
    var bytes: [UInt8] = []
    let utf8 = Array(text.utf8)
    var index = 0
    while index < utf8.count {
        if utf8[index] == UInt8(ascii: "%"), index + 2 < utf8.count,
           let value = UInt8(String(decoding: utf8[index + 1...index + 2], as: UTF8.self), radix: 16) {
            bytes.append(value)
            index += 3
        } else {
            bytes.append(utf8[index])
            index += 1
        }
    }
    return String(decoding: bytes, as: UTF8.self)
}
