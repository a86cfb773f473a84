#if FullFoundation
import Foundation
#else
import FoundationEssentials
#endif
public import Dispatch
import Synchronization

// `cURLDescription()`: the last URLRequest as a curl command line, in Alamofire's layout:
//
//   $ curl -v \
//   	-X POST \
//   	-H "Content-Type: application/json" \
//   	-d "{\"a\":1}" \
//   	"https://example.com/post"
//
// Headers are the session configuration's `httpAdditionalHeaders` overlaid by the request's own
// (a request header replaces a configured one of the same name in any case), in that order,
// without `Cookie`. In header values and the body, `\\`, `"`, `$` and `` ` `` are escaped with a backslash
// (`escapingQuotes`), so the shell reads back the bytes sent.
// After `-X`, as Alamofire: `-u user:password` for the request's credential (else one per
// credential the session's credential storage holds for the URL's host and port), then
// `-b "name=value;…"` with the session's stored cookies for the URL, when it sets cookies.

extension Request {
    /// The last URLRequest as a curl command, or `$ curl command could not be created` before
    /// the request built one (Lariat builds it when the request is resumed).
    public func cURLDescription() -> String {
        guard let request = lastRequest, let url = request.url, let method = request.httpMethod else {
            return "$ curl command could not be created"
        }
        var components = ["$ curl -v", "-X \(method)"]
        components += credentialArguments(for: url)
        let configuration = context.configuration
        if configuration.httpShouldSetCookies, let cookies = configuration.httpCookieStorage?.cookies(for: url), !cookies.isEmpty {
            components.append("-b \"\(Self.escapingQuotes(cookies.map { "\($0.name)=\($0.value)" }.joined(separator: ";")))\"")
        }
        var headers = HTTPHeaders()
        for (name, value) in (context.configuration.settings.httpAdditionalHeaders ?? [:]).sorted(by: { $0.key < $1.key })
        where name.lowercased() != "cookie" {
            headers.update(name: name, value: value)
        }
        for header in request.headers where header.name.lowercased() != "cookie" {
            headers.update(name: header.name, value: header.value)
        }
        for header in headers {
            components.append("-H \"\(header.name): \(Self.escapingQuotes(header.value))\"")
        }
        if let body = request.httpBody {
            components.append("-d \"\(Self.escapingQuotes(String(decoding: body, as: UTF8.self)))\"")
        }
        components.append("\"\(url.absoluteString)\"")
        return components.joined(separator: " \\\n\t")
    }

    /// `-u user:password` arguments: the request's credential, else the session storage's for the URL's server.
    private func credentialArguments(for url: URL) -> [String] {
        let argument = { (credential: URLCredential) -> String? in
            guard let user = credential.user, let password = credential.password else { return nil }
            return "-u \(user):\(password)"
        }
        if let credential { return argument(credential).map { [$0] } ?? [] }
        guard let storage = context.configuration.urlCredentialStorage, let host = url.host(percentEncoded: false)?.lowercased() else { return [] }
        let scheme = url.scheme?.lowercased() ?? "http"
        let port = url.port ?? (scheme == "https" ? 443 : 80)
        return storage.allCredentials.filter { $0.key.host == host && $0.key.port == port }
            .sorted { ($0.key.realm ?? "") < ($1.key.realm ?? "") }
            .flatMap { $0.value.values.sorted { ($0.user ?? "") < ($1.user ?? "") }.compactMap(argument) }
    }

    /// Calls `handler` on `queue` with ``cURLDescription()`` once the request built its URLRequest
    /// (at once if it has), and again for each later attempt's.
    /// - Parameters:
    ///   - queue: Where to call `handler`.
    ///   - handler: Receives the description.
    @discardableResult
    public func cURLDescription(on queue: DispatchQueue, calling handler: @escaping @Sendable (String) -> Void) -> Self {
        let entry = RequestLifecycle.Queued(queue: queue, handler: handler)
        let hasRequest = lifecycle.state.withLock { state in
            state.cURLHandlers.append(entry)
            return !state.requests.isEmpty
        }
        if hasRequest { entry.call(cURLDescription()) }
        return self
    }

    /// Calls `handler` on the request's ``underlyingQueue`` with ``cURLDescription()``; see
    /// ``cURLDescription(on:calling:)``.
    @discardableResult
    public func cURLDescription(calling handler: @escaping @Sendable (String) -> Void) -> Self {
        cURLDescription(on: underlyingQueue, calling: handler)
    }

    /// `text` as the inside of a shell double-quoted word: `\`, `"`, `$` and `` ` `` get a
    /// backslash, so `/bin/sh` reads back exactly `text` (a JSON body's `\"` becomes `\\\"`, as
    /// in Alamofire's description) and nothing in a body or header value expands or runs a
    /// command when the description is pasted into a shell.
    static func escapingQuotes(_ text: String) -> String {
        guard text.utf8.contains(where: { $0 == UInt8(ascii: "\"") || $0 == UInt8(ascii: "\\") || $0 == UInt8(ascii: "$") || $0 == UInt8(ascii: "`") })
        else { return text }
        var escaped = ""
        escaped.reserveCapacity(text.utf8.count + 8)
        for character in text {
            if character == "\"" || character == "\\" || character == "$" || character == "`" { escaped.append("\\") }
            escaped.append(character)
        }
        return escaped
    }
}
