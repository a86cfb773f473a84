// Choosing a request's proxy, the last step of the wire mapping (`TransportRequest+URLRequest.swift`):
// the route goes into the pool key; plain http through an HTTP proxy is sent in absolute-form
// with the proxy's credentials.

import Transport

extension TransportRequest {
    /// Routes a request through the configuration's proxy for its scheme and host, if any.
    ///
    /// - A tunnel (https, SOCKS5, or `tunnelsHTTP`): only the key changes; the origin sees an
    ///   ordinary origin-form request, and `Proxy-Authorization` goes in the CONNECT request only.
    /// - Plain `http://` through an HTTP proxy: the target becomes absolute-form
    ///   (`http://host:port/path?query`, RFC 9112 §3.2.2) and, when the proxy URL has
    ///   credentials and the request sets no `Proxy-Authorization` itself, `Proxy-Authorization:
    ///   Basic` is added, then the proxy's own ``ProxyServer/headers``. The connection to the proxy is pooled per origin.
    /// - `http+unix://` never uses a proxy.
    /// - Parameters:
    ///   - key: The pool key; gains the route.
    ///   - proxy: The session's proxies.
    ///   - scheme: The URL's scheme, lower case.
    ///   - authority: The origin's `host[:port]` as in the URL.
    ///   - target: The request target; absolute-form when forwarded.
    ///   - fields: The header fields; may gain `Proxy-Authorization`.
    static func routeThroughProxy(
        _ key: inout ConnectionKey, proxy: ProxyConfiguration?, scheme: String, authority: String,
        target: inout String, fields: inout [(name: String, value: String)]
    ) {
        guard key.unixSocketPath == nil, let configuration = proxy,
              let server = configuration.proxy(forScheme: scheme, host: key.host) else { return }
        let tunnels = server.tunnels(isTLS: key.isTLS, tunnelsHTTP: configuration.tunnelsHTTP)
        key.proxy = ProxyRoute(server: server, tunnels: tunnels, preproxy: configuration.preproxy)
        guard !tunnels else { return }
        target = "http://\(authority)\(target)"
        if let authorization = server.basicAuthorization,
           !fields.contains(where: { $0.name.lowercased() == "proxy-authorization" }) {
            fields.append(("Proxy-Authorization", authorization))
        }
        for field in server.headers {
            if let value = field.value { fields.append((field.name, value)) }
        }
    }
}
