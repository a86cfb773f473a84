// -4 / -6: Client's resolver has no address-family switch, so fetch resolves each URL's host
// itself with getaddrinfo restricted to one family and pins the answers as --resolve would.
import Client
#if canImport(Glibc)
import Glibc
#endif
import Transport

/// Restricts name resolution to IPv4 or IPv6.
struct AddressFamilyFilter {
    /// The family asked for.
    let version: FetchOptions.IPVersion

    /// A filter for `version`.
    init(_ version: FetchOptions.IPVersion) { self.version = version }

    /// Adds overrides to `resolver` for every URL's host, with only that family's addresses.
    ///
    /// - Throws: ``FetchSetupError`` status 6 when a host has no address of the family.
    func restrict(_ resolver: inout HostResolver, for urls: [String]) throws(FetchSetupError) {
        guard version != .any else { return }
        for url in urls {
            let (urlHost, urlPort) = TransferErrors.hostAndPort(url)
            let (host, port) = resolver.connectionTarget(host: urlHost, port: urlPort)  // after --connect-to
            if resolver.overriddenAddresses(host: host, port: port) != nil { continue }
            let addresses = resolve(host)
            guard !addresses.isEmpty else { throw FetchSetupError(status: 6, description: "(6) Could not resolve host: \(host)") }
            do { try resolver.override(host: host, port: port, addresses: addresses) } catch {
                throw FetchSetupError(status: 6, description: "(6) Could not resolve host: \(host)")
            }
        }
    }

    /// `host`'s addresses of the family, as text (a literal of the other family gives none).
    func resolve(_ host: String) -> [String] {
        var hints = addrinfo()
        hints.ai_family = version == .v4 ? AF_INET : AF_INET6
        hints.ai_socktype = Int32(SOCK_STREAM.rawValue)
        var list: UnsafeMutablePointer<addrinfo>?
        guard getaddrinfo(host, nil, &hints, &list) == 0 else { return [] }
        defer { freeaddrinfo(list) }
        var addresses: [String] = []
        var entry = list
        while let info = entry {
            var buffer = [CChar](repeating: 0, count: Int(NI_MAXHOST))
            if getnameinfo(info.pointee.ai_addr, info.pointee.ai_addrlen, &buffer, socklen_t(buffer.count), nil, 0, NI_NUMERICHOST) == 0 {
                let text = String(decoding: buffer.prefix(while: { $0 != 0 }).map { UInt8(bitPattern: $0) }, as: UTF8.self)
                if !addresses.contains(text) { addresses.append(text) }
            }
            entry = info.pointee.ai_next
        }
        return addresses
    }
}
