// curl's proxy options and environment, and curl's exit statuses and messages for proxy failures:
//   5  could not resolve the (HTTP) proxy, or a proxy URL curl cannot parse
//   6  could not resolve a SOCKS proxy (curl 7.88 reports it as the host)
//   7  could not connect to the proxy, or a proxy scheme fetch does not speak
//   56 the HTTP proxy refused CONNECT ("CONNECT tunnel failed, response 407") or broke off
//   97 any SOCKS5 failure after the TCP connect
import Client
import FoundationEssentials
#if FullFoundation
import Foundation  // URLError is Foundation's own in the default build; Client's without the trait
#endif

//   35, 60, 90 a failed TLS session to an https:// proxy (FetchProxyTLS.swift)

/// The proxy options of one run.
struct FetchProxyOptions: Equatable, Sendable {
    /// `-x`/`--proxy` (or `--socks5…` as a URL): `""` disables every proxy, environment included.
    var proxy: String?
    /// `-U`/`--proxy-user USER[:PASSWORD]`, for whichever proxy is used.
    var proxyUser: String?
    /// `--noproxy LIST`: replaces `no_proxy`/`NO_PROXY` (`""` clears it).
    var noProxy: String?
    /// `-p`/`--proxytunnel`: `CONNECT` for http:// too.
    var tunnel = false
    /// The `--proxy-*` TLS options, for an `https://` proxy.
    var tls = FetchProxyTLSOptions()
    /// `--proxy-header` lines, in order (curl's `-H` syntax: `Name:` removes, `Name;` is empty).
    var headerLines: [String] = []
    /// `--proxy1.0 HOST`: the proxy's CONNECT says HTTP/1.0 (`-x` sets it back to 1.1, as curl).
    var http10 = false
    /// `--preproxy [scheme://]HOST[:PORT]`: a SOCKS proxy in front of the HTTP(S) proxy. As in
    /// curl 7.88 (lib/url.c), a SOCKS preproxy without `-x` is the proxy itself (the
    /// environment is not read), one with a SOCKS `-x` replaces it, and a preproxy without a
    /// SOCKS scheme is an HTTP proxy that replaces `-x`.
    var preproxy: String?
    /// `--proxy-basic`, `--proxy-digest`, `--proxy-anyauth`: curl's three switches, each on or
    /// off; curl's tool picks anyauth, then digest, then basic (tool_operate.c).
    var basic = false, digest = false, anyAuth = false
    /// `--socks5-basic` and `--socks5-gssapi` (curl's `socks5_auth` bits): none set is curl's
    /// default (both); a set without Basic offers no user name and password to a SOCKS5 proxy.
    var socks5Basic = false, socks5GSSAPI = false

    /// The schemes the proxy credential answers (curl's CURLOPT_PROXYAUTH from the switches).
    var authenticationMethods: ProxyServer.AuthenticationMethods {
        if anyAuth { return .any }
        if digest { return .digest }
        return .basic
    }

    /// `--proxy-header` lines as the proxy's fields: curl's custom-header reading (a line
    /// with neither `:` nor a trailing `;` is ignored).
    var headerFields: [ProxyServer.HeaderField] {
        headerLines.compactMap { line in
            if let colon = line.firstIndex(of: ":") {
                let value = line[line.index(after: colon)...].trimmed
                return ProxyServer.HeaderField(name: String(line[..<colon]).trimmed, value: value.isEmpty ? nil : value)
            }
            guard line.hasSuffix(";") else { return nil }
            return ProxyServer.HeaderField(name: String(line.dropLast()).trimmed, value: "")
        }
    }

    /// The session's proxies: `-x` (else the environment, read as curl reads it), with
    /// `--noproxy`, `-U` and `-p` applied; `nil` when there is none, or when `bypassed`
    /// (`--unix-socket`, which curl never sends through a proxy). `userAgent` goes in the
    /// CONNECT request, as curl sends its `-A` value there (`-H` fields do not).
    /// - Throws: ``FetchSetupError`` 5 for a proxy URL that does not parse, 7 for a scheme fetch
    ///   does not speak (`ftp://`), as curl's statuses for the same inputs.
    func configuration(
        environment: [String: String], bypassed: Bool, userAgent: String = RequestBuilder.userAgent
    ) throws(FetchSetupError) -> ProxyConfiguration? {
        guard !bypassed else { return nil }
        var configuration: ProxyConfiguration
        let fromEnvironment = ProxyConfiguration.environment(environment)
        // no_proxy applies to -x too, even when no proxy variable is set (curl 7.88).
        let environmentExceptions = [environment["no_proxy"], environment["NO_PROXY"]]
            .compactMap { $0 }.first { !$0.isEmpty }.map { [$0] } ?? []
        func parsed(_ text: String) throws(FetchSetupError) -> ProxyServer {
            do throws(ProxyError) {
                return try ProxyServer(parsing: text)
            } catch where error.code == .unsupportedScheme {
                throw FetchSetupError(status: 7, description: "(7) Unsupported proxy scheme for '\(text)'")
            } catch {
                throw FetchSetupError(status: 5, description: "(5) Unsupported proxy syntax in '\(text)'")
            }
        }
        let proxy = self.proxy.flatMap { $0.isEmpty ? nil : $0 }
        if let preproxy, !preproxy.isEmpty {
            let front = try parsed(preproxy)
            var behind = try proxy.map(parsed)
            if front.speaksHTTP || behind.map({ !$0.speaksHTTP }) ?? true {
                behind = front  // it takes -x's place (curl fills one slot per kind)
            }
            guard let behind else { return nil }
            configuration = ProxyConfiguration(all: behind, exceptions: environmentExceptions)
            if behind != front { configuration.preproxy = front }
        } else if let proxy {
            configuration = ProxyConfiguration(all: try parsed(proxy), exceptions: environmentExceptions)
        } else if self.proxy != nil {
            return nil  // -x "" disables every proxy, environment included
        } else if let fromEnvironment {
            configuration = fromEnvironment
        } else {
            return nil
        }
        if let noProxy { configuration.exceptions = noProxy.isEmpty ? [] : [noProxy] }
        configuration.tunnelsHTTP = tunnel
        let fields = headerFields
        if !fields.isEmpty || http10 {
            func withFields(_ server: ProxyServer?) -> ProxyServer? {
                guard var server, server.speaksHTTP else { return server }
                server.headers = fields
                server.connectsWithHTTP10 = http10
                return server
            }
            configuration.httpProxy = withFields(configuration.httpProxy)
            configuration.httpsProxy = withFields(configuration.httpsProxy)
        }
        if let proxyUser {
            let parts = proxyUser.split(separator: ":", maxSplits: 1, omittingEmptySubsequences: false)
            func withUser(_ server: ProxyServer?) -> ProxyServer? {
                guard var server else { return nil }
                server.username = String(parts[0])
                server.password = parts.count > 1 ? String(parts[1]) : ""
                return server
            }
            configuration.httpProxy = withUser(configuration.httpProxy)
            configuration.httpsProxy = withUser(configuration.httpsProxy)
        }
        let methods = authenticationMethods
        let offersSOCKSPassword = socks5Basic || !socks5GSSAPI
        func withAuthentication(_ server: ProxyServer?) -> ProxyServer? {
            guard var server else { return nil }
            server.authenticationMethods = methods
            server.connectUserAgent = userAgent
            // curl's --socks5-gssapi alone: only "no authentication" is offered (no GSS-API here).
            if !offersSOCKSPassword, server.kind == .socks5 || server.kind == .socks5h { (server.username, server.password) = (nil, nil) }
            return server
        }
        configuration.httpProxy = withAuthentication(configuration.httpProxy)
        configuration.httpsProxy = withAuthentication(configuration.httpsProxy)
        configuration.preproxy = withAuthentication(configuration.preproxy)
        return configuration
    }
}

extension TransferErrors {
    /// The ProxyError behind `error`, if a proxy failed.
    static func proxyError(in error: AFError) -> ProxyError? {
        guard case .sessionTaskFailed(let underlying) = error,
              let transport = (underlying as? URLError)?.underlyingError as? TransportError else { return nil }
        return transport.underlying as? ProxyError
    }

    /// curl's exit status for a proxy failure, or `nil` when no proxy failed.
    static func proxyExitStatus(for error: AFError) -> Int32? {
        guard let proxy = proxyError(in: error) else { return nil }
        let socks = proxy.proxy.hasPrefix("socks")
        switch proxy.code {
        case .proxyNotFound: return socks ? 6 : 5
        case .proxyUnreachable, .unsupportedScheme: return 7
        case .malformedProxyURL: return 5
        case .tlsHandshakeFailed: return proxyTLSExitStatus(proxy)
        default: return socks ? 97 : 56
        }
    }

    /// curl's message for a proxy failure, or `nil` when no proxy failed.
    static func proxyMessage(for error: AFError) -> String? {
        guard let proxy = proxyError(in: error) else { return nil }
        let (host, port) = hostAndPort(proxy.proxy)
        switch proxy.code {
        case .proxyNotFound: return proxy.proxy.hasPrefix("socks") ? "Could not resolve host: \(host)" : "Could not resolve proxy: \(host)"
        case .proxyUnreachable: return "Failed to connect to \(host) port \(port): Connection refused"
        case .authenticationRequired, .tunnelRefused: return "CONNECT tunnel failed, response \(proxy.status ?? 0)"
        case .tlsHandshakeFailed: return proxyTLSMessage(proxy)
        case .closed where !proxy.proxy.hasPrefix("socks"): return "Proxy CONNECT aborted"
        default: return proxy.detail
        }
    }
}
