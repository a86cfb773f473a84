// Proxy configuration without sockets: curl's no_proxy matching (rows checked against curl 7.88
// itself, `curl -x http://127.0.0.1:1 --noproxy LIST URL`), the environment as curl reads it,
// proxy URL parsing, Apple's connectionProxyDictionary keys, and the route a request takes.
#if FullFoundation
import Foundation
#else
import FoundationEssentials
#endif
import Testing
import Wire
@testable import Client
@testable import Transport

@Suite("Proxy configuration")
struct ProxyConfigurationTests {
    /// (no_proxy list, host, bypasses the proxy).
    static let noProxyRows: [(String, String, Bool)] = [
        ("localhost", "localhost", true),            // exact
        ("LOCALHOST", "a.localhost", true),          // suffix on a label, any case
        (".localhost", "localhost", true),           // leading dot: the domain itself too
        ("localhost.", "localhost", true),           // trailing dot dropped
        ("calhost", "localhost", false),             // not on a label boundary
        ("localhost:9", "localhost", false),         // an entry with a port matches nothing (curl 7.88)
        ("*", "anything.example", true),             // `*` alone: every host
        ("*,foo", "127.0.0.2", false),               // `*` in a list is an ordinary name
        ("*.localhost", "a.localhost", false),       // no globbing
        ("foo, 127.0.0.2", "127.0.0.2", true),       // comma and space
        ("foo 127.0.0.2", "127.0.0.2", true),        // space alone separates
        ("127.0.0.0/8", "127.0.0.2", true),          // CIDR
        ("127.0.0.0/8", "128.0.0.1", false),
        ("10.1.0.0/16", "10.1.255.3", true),
        ("10.1.0.0/17", "10.1.255.3", false),
        ("127.0.0.1", "localhost", false),           // no resolution
        ("::1", "[::1]", true),                      // IPv6 literal, bracketed host
        ("[::1]", "[::1]", false),                   // a bracketed entry matches nothing (curl 7.88)
        ("fd00::/8", "fd12:3456::1", true),
        ("fd00::/8", "fe80::1", false),
        ("2001:db8::1", "2001:db8:0:0:0:0:0:1", true),
        ("127.0.0.1", "::ffff:127.0.0.1", false),    // families differ
        ("example.com", "example.com.", true),       // host's trailing dot
        ("example.com", "notexample.com", false),
        ("", "example.com", false),
        (" , ,", "example.com", false),
    ]

    @Test("no_proxy matching follows curl 7.88", arguments: noProxyRows.indices)
    func noProxy(row: Int) {
        let (list, host, expected) = Self.noProxyRows[row]
        #expect(NoProxyList(list).matches(host: host) == expected, "no_proxy=\(list) host=\(host)")
    }

    /// (environment, proxy for http, proxy for https, exceptions).
    static let environmentRows: [([String: String], String?, String?, [String])] = [
        ([:], nil, nil, []),
        (["http_proxy": "proxy:3128"], "http://proxy:3128", nil, []),
        (["HTTP_PROXY": "proxy:3128"], nil, nil, []),                                  // upper case ignored (httpoxy)
        (["https_proxy": "http://s:1"], nil, "http://s:1", []),
        (["HTTPS_PROXY": "http://S:1"], nil, "http://S:1", []),
        (["https_proxy": "http://lower:1", "HTTPS_PROXY": "http://upper:1"], nil, "http://lower:1", []),
        (["all_proxy": "socks5h://a:9"], "socks5h://a:9", "socks5h://a:9", []),
        (["ALL_PROXY": "a"], "http://a:1080", "http://a:1080", []),                   // default scheme and port
        (["all_proxy": "a:1", "http_proxy": "h:2"], "http://h:2", "http://a:1", []),
        (["http_proxy": "h:2", "no_proxy": "localhost,.internal"], "http://h:2", nil, ["localhost,.internal"]),
        (["http_proxy": "h:2", "NO_PROXY": "x"], "http://h:2", nil, ["x"]),
        (["http_proxy": "", "all_proxy": "a:1"], "http://a:1", "http://a:1", []),    // empty counts as unset
        (["http_proxy": "ftp://h:2"], nil, nil, []),                                  // unsupported scheme ignored
    ]

    @Test("the environment is read as curl reads it", arguments: environmentRows.indices)
    func environment(row: Int) {
        let (variables, http, https, exceptions) = Self.environmentRows[row]
        let configuration = ProxyConfiguration.environment(variables)
        #expect(configuration?.httpProxy.map { "\($0.kind.rawValue)://\($0.host):\($0.port)" } == http, "\(variables)")
        #expect(configuration?.httpsProxy.map { "\($0.kind.rawValue)://\($0.host):\($0.port)" } == https, "\(variables)")
        #expect((configuration?.exceptions ?? []) == exceptions, "\(variables)")
    }

    /// (proxy URL, kind, host, port, user, password), or nil fields for a refused URL.
    static let urlRows: [(String, ProxyServer?)] = [
        ("proxy.example", ProxyServer(host: "proxy.example", port: 1080)),
        ("http://proxy.example:3128/", ProxyServer(host: "proxy.example", port: 3128)),
        ("HTTP://p:1", ProxyServer(host: "p", port: 1)),
        ("socks5://p:1", ProxyServer(kind: .socks5, host: "p", port: 1)),
        ("socks5h://u:p%40ss@p:1", ProxyServer(kind: .socks5h, host: "p", port: 1, username: "u", password: "p@ss")),
        ("http://user@p", ProxyServer(host: "p", username: "user")),
        ("http://[::1]:8080", ProxyServer(host: "::1", port: 8080)),
        ("[::1]", ProxyServer(host: "::1", port: 1080)),
        ("https://p:1", ProxyServer(kind: .https, host: "p", port: 1)),
        ("HTTPS://u:pw@p", ProxyServer(kind: .https, host: "p", port: 443, username: "u", password: "pw")),  // curl: 443 for https
        ("socks4://u:pw@p:1", ProxyServer(kind: .socks4, host: "p", port: 1, username: "u", password: "pw")),
        ("SOCKS4A://p", ProxyServer(kind: .socks4a, host: "p", port: 1080)),
        ("ftp://p:1", nil),
        ("socks6://p:1", nil),
        ("http://p:0", nil),
        ("http://p:70000", nil),
        ("http://p:x", nil),
        ("http://", nil),
        ("http://p:1/path", nil),
    ]

    @Test("proxy URLs parse as curl's -x does", arguments: urlRows.indices)
    func proxyURL(row: Int) {
        let (text, expected) = Self.urlRows[row]
        #expect(ProxyServer(url: text) == expected, "\(text)")
    }

    @Test("Basic credentials come from the proxy URL's userinfo")
    func basicCredentials() {
        #expect(ProxyServer(url: "http://aladdin:opensesame@p")?.basicAuthorization == "Basic YWxhZGRpbjpvcGVuc2VzYW1l")
        #expect(ProxyServer(url: "http://p")?.basicAuthorization == nil)
    }

    @Test("an HTTPS proxy (TLS to the proxy) is left out of Apple's keys, never written as a plain HTTP proxy")
    func httpsProxyNotInDictionary() {
        let configuration = URLSessionConfiguration.default
        configuration.proxy = ProxyConfiguration(
            httpProxy: ProxyServer(host: "h.example", port: 3128), httpsProxy: ProxyServer(kind: .https, host: "s.example", port: 8443))
        let dictionary = configuration.connectionProxyDictionary ?? [:]
        #expect(dictionary["HTTPProxy"] as? String == "h.example")
        #expect(dictionary["HTTPSProxy"] == nil && dictionary["HTTPSEnable"] == nil && dictionary["SOCKSProxy"] == nil, "\(dictionary)")
    }

    @Test("connectionProxyDictionary reads and writes Apple's keys")
    func dictionary() {
        let configuration = URLSessionConfiguration.default
        configuration.connectionProxyDictionary = [
            "HTTPEnable": 1, "HTTPProxy": "h.example", "HTTPPort": 3128,
            "HTTPSEnable": true, "HTTPSProxy": "s.example", "HTTPSPort": "8443",
            "ExceptionsList": ["localhost", "*.local"],
        ]
        #expect(configuration.proxy?.httpProxy == ProxyServer(host: "h.example", port: 3128))
        #expect(configuration.proxy?.httpsProxy == ProxyServer(host: "s.example", port: 8443))
        #expect(configuration.proxy?.exceptions == ["localhost", "*.local"])
        let back = configuration.connectionProxyDictionary ?? [:]
        #expect(back["HTTPProxy"] as? String == "h.example")
        #expect(back["HTTPSPort"] as? Int == 8443)

        configuration.connectionProxyDictionary = ["SOCKSEnable": 1, "SOCKSProxy": "sox", "SOCKSPort": 1081]
        #expect(configuration.proxy == ProxyConfiguration(all: ProxyServer(kind: .socks5h, host: "sox", port: 1081)))
        // SOCKS credentials (RFC 1929) and version, CFNetwork's kCFStreamPropertySOCKS… keys, both ways.
        configuration.connectionProxyDictionary = [
            "SOCKSEnable": 1, "SOCKSProxy": "sox", "SOCKSPort": 1081,
            "kCFStreamPropertySOCKSUser": "u", "kCFStreamPropertySOCKSPassword": "p@ss",
        ]
        #expect(configuration.proxy == ProxyConfiguration(all: ProxyServer(kind: .socks5h, host: "sox", port: 1081, username: "u", password: "p@ss")))
        let socksBack = configuration.connectionProxyDictionary ?? [:]
        #expect(socksBack["kCFStreamPropertySOCKSUser"] as? String == "u" && socksBack["kCFStreamPropertySOCKSPassword"] as? String == "p@ss")
        #expect(socksBack["kCFStreamPropertySOCKSVersion"] as? String == "kCFStreamSocketSOCKSVersion5")
        configuration.connectionProxyDictionary = [
            "SOCKSEnable": 1, "SOCKSProxy": "sox", "kCFStreamPropertySOCKSVersion": "kCFStreamSocketSOCKSVersion4",
        ]
        #expect(configuration.proxy == ProxyConfiguration(all: ProxyServer(kind: .socks4a, host: "sox", port: 1080)))
        configuration.connectionProxyDictionary = ["HTTPEnable": 0, "HTTPProxy": "h"]
        #expect(configuration.proxy == nil)
        configuration.connectionProxyDictionary = nil
        #expect(configuration.connectionProxyDictionary == nil)
    }

    /// (URL, proxy configuration, expected target, expected route description or nil, Proxy-Authorization sent to the origin line).
    static let routeRows: [(String, ProxyConfiguration?, String, String?, String?)] = [
        ("http://o.example/a?b=1", ProxyConfiguration(all: ProxyServer(host: "p", port: 8, username: "u", password: "pw")),
         "http://o.example/a?b=1", "http://p:8 forward", "Basic dTpwdw=="),
        ("http://o.example:8080/", ProxyConfiguration(httpProxy: ProxyServer(host: "p", port: 8)),
         "http://o.example:8080/", "http://p:8 forward", nil),
        ("https://o.example/a", ProxyConfiguration(all: ProxyServer(host: "p", port: 8, username: "u", password: "pw")),
         "/a", "http://p:8 tunnel", nil),                                   // credentials only in CONNECT
        ("http://o.example/a", ProxyConfiguration(all: ProxyServer(host: "p", port: 8), tunnelsHTTP: true),
         "/a", "http://p:8 tunnel", nil),
        ("http://o.example/a", ProxyConfiguration(all: ProxyServer(kind: .socks5h, host: "p", port: 8)),
         "/a", "socks5h://p:8 tunnel", nil),
        ("http://o.example/a", ProxyConfiguration(httpsProxy: ProxyServer(host: "p", port: 8)), "/a", nil, nil),
        ("http://o.example/a", ProxyConfiguration(all: ProxyServer(host: "p", port: 8), exceptions: ["example"]), "/a", nil, nil),
        ("http+unix://%2Ftmp%2Fs.sock/a", ProxyConfiguration(all: ProxyServer(host: "p", port: 8)), "/a", nil, nil),
        ("http://o.example/a", nil, "/a", nil, nil),
    ]

    @Test("a request's route, target form and Proxy-Authorization", arguments: routeRows.indices)
    func route(row: Int) throws {
        let (url, proxy, target, route, authorization) = Self.routeRows[row]
        let configuration = URLSessionConfiguration.default
        configuration.proxy = proxy
        let session = Session(configuration: configuration)
        let request = try session.transportRequest(for: URLRequest(url: URL(string: url)!))
        #expect(request.head.target == target, "\(url)")
        #expect(request.key.proxy.map { "\($0.server) \($0.tunnels ? "tunnel" : "forward")" } == route, "\(url)")
        #expect(request.head.fields.first { $0.name == "Proxy-Authorization" }?.value == authorization, "\(url)")
    }
}
