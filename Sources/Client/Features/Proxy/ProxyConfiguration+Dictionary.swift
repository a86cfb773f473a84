// Apple's connectionProxyDictionary keys (CFNetwork's kCFNetworkProxies… constants, whose values
// are these strings) to and from ProxyConfiguration.

import Transport

/// The `connectionProxyDictionary` keys Lariat understands.
enum ProxyDictionaryKey {
    // kCFNetworkProxiesHTTPEnable, …HTTPProxy, …HTTPPort, the same for HTTPS and SOCKS, and
    // kCFNetworkProxiesExceptionsList: the strings Apple's constants stand for.
    static let httpEnable = "HTTPEnable"
    static let httpProxy = "HTTPProxy"
    static let httpPort = "HTTPPort"
    static let httpsEnable = "HTTPSEnable"
    static let httpsProxy = "HTTPSProxy"
    static let httpsPort = "HTTPSPort"
    static let socksEnable = "SOCKSEnable"
    static let socksProxy = "SOCKSProxy"
    static let socksPort = "SOCKSPort"
    static let exceptionsList = "ExceptionsList"
    // kCFStreamPropertySOCKSUser, …SOCKSPassword, …SOCKSVersion and its two values, which
    // CFNetwork defines as the constants' own names.
    static let socksUser = "kCFStreamPropertySOCKSUser"
    static let socksPassword = "kCFStreamPropertySOCKSPassword"
    static let socksVersion = "kCFStreamPropertySOCKSVersion"
    static let socksVersion4 = "kCFStreamSocketSOCKSVersion4"
    static let socksVersion5 = "kCFStreamSocketSOCKSVersion5"
}

extension ProxyConfiguration {
    /// Reads Apple's dictionary: an enabled HTTP (HTTPS) proxy serves `http://` (`https://`)
    /// URLs; an enabled SOCKS proxy (SOCKS5, names resolved by the proxy as Apple does, or
    /// SOCKS4a for `kCFStreamSocketSOCKSVersion4`; `kCFStreamPropertySOCKSUser` and
    /// `…SOCKSPassword` its RFC 1929 credentials) serves whichever scheme has no HTTP proxy.
    /// `nil` when no proxy is enabled.
    /// - Parameter dictionary: The dictionary; values may be `Bool`, `Int` or numeric strings.
    init?(dictionary: [AnyHashable: Any]) {
        func string(_ key: String) -> String? {
            dictionary[AnyHashable(key)].flatMap { $0 as? String }.flatMap { $0.isEmpty ? nil : $0 }
        }
        func int(_ key: String) -> Int? {
            guard let value = dictionary[AnyHashable(key)] else { return nil }
            if let number = value as? Int { return number }
            if let flag = value as? Bool { return flag ? 1 : 0 }
            if let text = value as? String { return Int(text) }
            return nil
        }
        func server(_ enable: String, _ host: String, _ port: String, kind: ProxyServer.Kind) -> ProxyServer? {
            guard int(enable) == 1, let name = string(host) else { return nil }
            return ProxyServer(kind: kind, host: name, port: int(port) ?? ProxyServer.defaultPort)
        }
        let socksKind: ProxyServer.Kind = string(ProxyDictionaryKey.socksVersion) == ProxyDictionaryKey.socksVersion4 ? .socks4a : .socks5h
        var socks = server(ProxyDictionaryKey.socksEnable, ProxyDictionaryKey.socksProxy, ProxyDictionaryKey.socksPort, kind: socksKind)
        if let user = string(ProxyDictionaryKey.socksUser) {
            socks?.username = user
            socks?.password = string(ProxyDictionaryKey.socksPassword) ?? ""
        }
        let http = server(ProxyDictionaryKey.httpEnable, ProxyDictionaryKey.httpProxy, ProxyDictionaryKey.httpPort, kind: .http) ?? socks
        let https = server(ProxyDictionaryKey.httpsEnable, ProxyDictionaryKey.httpsProxy, ProxyDictionaryKey.httpsPort, kind: .http) ?? socks
        guard http != nil || https != nil else { return nil }
        let exceptions = dictionary[AnyHashable(ProxyDictionaryKey.exceptionsList)].flatMap { $0 as? [String] } ?? []
        self.init(httpProxy: http, httpsProxy: https, exceptions: exceptions)
    }

    /// Apple's dictionary for `configuration`.
    /// - Parameter configuration: The proxies.
    /// - Returns: The `kCFNetworkProxies…` keys and values.
    static func dictionary(of configuration: ProxyConfiguration) -> [AnyHashable: Any] {
        var result: [AnyHashable: Any] = [:]
        for (server, isTLS) in [(configuration.httpProxy, false), (configuration.httpsProxy, true)] {
            // Apple's keys have no way to say "TLS to the proxy" (kCFNetworkProxiesHTTPSProxy is
            // the proxy for https origins): an HTTPS proxy is left out rather than written as a
            // plain one, which would send its traffic and credentials unencrypted once read back.
            guard let server, server.kind != .https else { continue }
            let keys = server.kind != .http
                ? (ProxyDictionaryKey.socksEnable, ProxyDictionaryKey.socksProxy, ProxyDictionaryKey.socksPort)
                : isTLS ? (ProxyDictionaryKey.httpsEnable, ProxyDictionaryKey.httpsProxy, ProxyDictionaryKey.httpsPort)
                : (ProxyDictionaryKey.httpEnable, ProxyDictionaryKey.httpProxy, ProxyDictionaryKey.httpPort)
            result[keys.0] = 1
            result[keys.1] = server.host
            result[keys.2] = server.port
            if server.kind != .http {
                let v4 = server.kind == .socks4 || server.kind == .socks4a
                result[ProxyDictionaryKey.socksVersion] = v4 ? ProxyDictionaryKey.socksVersion4 : ProxyDictionaryKey.socksVersion5
                if let user = server.username {
                    result[ProxyDictionaryKey.socksUser] = user
                    result[ProxyDictionaryKey.socksPassword] = server.password ?? ""
                }
            }
        }
        if !configuration.exceptions.isEmpty { result[ProxyDictionaryKey.exceptionsList] = configuration.exceptions }
        return result
    }
}
