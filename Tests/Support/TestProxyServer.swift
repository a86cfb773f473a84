// Proxies for tests, on loopback, recording what they received: an HTTP proxy (absolute-form
// forwarding and CONNECT tunnels) and a SOCKS5 proxy (RFC 1928, RFC 1929 authentication).
//
// Written in Swift over the blocking loopback helpers rather than tinyproxy/dante from apt: the
// tests assert exactly what the client sent the proxy (the request line's form, Proxy-
// Authorization, the CONNECT line, the SOCKS5 address type and name), provoke answers a real
// proxy will not give on demand (407, 403, a SOCKS5 error reply, a tunnel to a different server),
// and run in the FoundationEssentials-only build with nothing installed.
//
// Every destination resolves to 127.0.0.1 (the name asked for is recorded), optionally at a fixed
// port (`tunnelPort`) so a test can send a tunnel for `lariat.test:443` to a local TLS server.
// One thread per connection; every wait polls in 20 ms slices so `stop()` is prompt.
import CLinux
import Glibc
import Synchronization
import TLS

/// What a test proxy does with a connection.
public enum TestProxyBehavior: Sendable, Hashable {
    /// Forward (HTTP) or tunnel (CONNECT, SOCKS5) to the destination.
    case serve
    /// HTTP: answer every request with this status and close. SOCKS5: reply with this code.
    case refuse(Int)
    /// Close the connection as soon as the first bytes arrive.
    case hangUp
    /// Serve, but wait this many milliseconds before answering CONNECT (HTTP only).
    case delayTunnel(milliseconds: Int)
}

/// How an HTTP test proxy with credentials challenges: Basic (the 407 closes the connection),
/// Digest (MD5, `qop=auth`; the 407 has a body and keeps the connection open, as Squid's does,
/// and the answer's response is checked), Digest whose 407 says `Connection: close` and closes,
/// or both challenges offered, either answer accepted.
public enum TestProxyAuthScheme: Sendable, Hashable {
    case basic, digest, digestClosing, any
}

/// A loopback proxy speaking HTTP (forwarding and CONNECT) or SOCKS5. Call ``stop()``.
public final class TestProxyServer: Sendable {
    /// The protocol a ``TestProxyServer`` speaks.
    public enum Kind: Sendable { case http, socks5 }

    /// One request the proxy received.
    public struct Record: Sendable, Hashable {
        /// HTTP: the request head as text (request line and fields). SOCKS5: empty.
        public var head: String
        /// The destination asked for: `host:port` (CONNECT, SOCKS5) or the absolute URL's authority.
        public var destination: String
        /// SOCKS5: the address type (1 IPv4, 3 name, 4 IPv6); HTTP: 0.
        public var socksAddressType: UInt8
        /// SOCKS5: the user name of RFC 1929 authentication, if any.
        public var socksUser: String?
    }

    /// The listening port.
    public let port: Int
    private let kind: Kind
    private let behavior: TestProxyBehavior
    private let credentials: (user: String, password: String)?
    private let authScheme: TestProxyAuthScheme
    private let tunnelPort: Int?
    private let listenFD: Int32
    private let records = Mutex<[Record]>([])
    private let threads = Mutex<[TestThread]>([])
    private let stopping = Atomic<Bool>(false)

    /// Starts a proxy on 127.0.0.1.
    /// - Parameters:
    ///   - kind: HTTP or SOCKS5.
    ///   - behavior: Serve (default), refuse, or hang up.
    ///   - credentials: Required credentials: HTTP `Proxy-Authorization: Basic` (else 407), SOCKS5
    ///     username/password (else no acceptable method, or auth failure). None by default.
    ///   - tunnelPort: Connect every destination to this port instead of the one asked for.
    ///   - authScheme: How an HTTP proxy with credentials challenges, Basic by default.
    /// - Throws: ``TestServerError`` if it cannot listen.
    public init(
        kind: Kind, behavior: TestProxyBehavior = .serve, credentials: (user: String, password: String)? = nil, tunnelPort: Int? = nil,
        authScheme: TestProxyAuthScheme = .basic
    ) throws(TestServerError) {
        self.authScheme = authScheme
        let fd = try Loopback.boundSocket(.ipv4)
        guard listen(fd, 64) == 0 else {
            let code = errno
            close(fd)
            throw TestServerError(call: "listen", errno: code)
        }
        listenFD = fd
        port = Loopback.port(of: fd)
        self.kind = kind
        self.behavior = behavior
        self.credentials = credentials
        self.tunnelPort = tunnelPort
        let acceptor = TestThread.start { [self] in acceptLoop() }
        threads.withLock { $0.append(acceptor) }
    }

    /// Everything received so far, in order.
    public var received: [Record] { records.withLock { $0 } }

    /// Stops every thread and closes the listener.
    public func stop() {
        guard !stopping.exchange(true, ordering: .acquiringAndReleasing) else { return }
        while let thread = threads.withLock({ $0.popLast() }) { thread.join() }
        close(listenFD)
    }

    private func acceptLoop() {
        while !stopping.load(ordering: .acquiring) {
            guard Loopback.waitReadable(listenFD, milliseconds: 20) else { continue }
            let client = lariat_accept_cloexec(listenFD)  // close-on-exec: tests fork fetch and curl
            guard client >= 0 else { continue }
            let thread = TestThread.start { [self] in
                switch kind {
                case .http: serveHTTP(client)
                case .socks5: serveSOCKS(client)
                }
                close(client)
            }
            threads.withLock { $0.append(thread) }
        }
    }

    // MARK: HTTP

    private func serveHTTP(_ client: Int32) {
        var buffer: [UInt8] = []
        var headEnd = 0
        var lines: [Substring] = []
        var parts: [Substring] = []
        // A Digest 407 keeps the connection: the answer comes on it.
        while true {
            guard let end = readUntilHeadEnd(client, into: &buffer) else { return }
            if behavior == .hangUp { return }
            headEnd = end
            let head = String(decoding: buffer[..<headEnd], as: UTF8.self)
            lines = head.split(separator: "\r\n", omittingEmptySubsequences: false)
            parts = lines.first.map { $0.split(separator: " ") } ?? []
            guard parts.count == 3, credentials != nil, authScheme != .basic, behavior == .serve,
                  !authorized(lines, method: String(parts[0]), uri: String(parts[1])) else { break }
            records.withLock { $0.append(Record(head: head, destination: String(parts[1]), socksAddressType: 0, socksUser: nil)) }
            var challenges = "Proxy-Authenticate: Digest realm=\"test\", nonce=\"n0nce\", qop=\"auth\"\r\n"
            if authScheme == .any { challenges = "Proxy-Authenticate: Basic realm=\"test\"\r\n" + challenges }
            if authScheme == .digestClosing { challenges += "Connection: close\r\n" }
            _ = Loopback.sendAll(client, Array("HTTP/1.1 407 Proxy Authentication Required\r\n\(challenges)Content-Length: 7\r\n\r\ndenied\n".utf8))
            if authScheme == .digestClosing { return }
            buffer = Array(buffer[(headEnd + 4)...])
        }
        let head = String(decoding: buffer[..<headEnd], as: UTF8.self)
        guard parts.count == 3 else { return }
        let method = String(parts[0]), target = String(parts[1])
        var destination = target
        var originForm = target
        if method != "CONNECT", target.hasPrefix("http://") {
            let rest = target.dropFirst("http://".count)
            let slash = rest.firstIndex(of: "/") ?? rest.endIndex
            destination = String(rest[..<slash])
            originForm = slash == rest.endIndex ? "/" : String(rest[slash...])
        }
        records.withLock { $0.append(Record(head: head, destination: destination, socksAddressType: 0, socksUser: nil)) }
        if case .refuse(let status) = behavior {
            _ = Loopback.sendAll(client, Array("HTTP/1.1 \(status) Refused\r\nContent-Length: 7\r\nConnection: close\r\n\r\nrefused".utf8))
            return
        }
        if credentials != nil {
            guard authorized(lines, method: method, uri: target) else {
                _ = Loopback.sendAll(client, Array("HTTP/1.1 407 Proxy Authentication Required\r\nProxy-Authenticate: Basic realm=\"test\"\r\nContent-Length: 0\r\n\r\n".utf8))
                return
            }
        }
        guard let origin = connectOrigin(destination) else {
            _ = Loopback.sendAll(client, Array("HTTP/1.1 502 Bad Gateway\r\nContent-Length: 0\r\nConnection: close\r\n\r\n".utf8))
            return
        }
        defer { close(origin) }
        let rest = Array(buffer[(headEnd + 4)...])
        if method == "CONNECT" {
            if case .delayTunnel(let milliseconds) = behavior { usleep(UInt32(milliseconds) * 1000) }
            _ = Loopback.sendAll(client, Array("HTTP/1.1 200 Connection established\r\n\r\n".utf8))
            if !rest.isEmpty { _ = Loopback.sendAll(origin, rest) }
        } else {
            // Origin-form to the origin, without the proxy's own field.
            var forwarded = "\(method) \(originForm) \(parts[2])\r\n"
            for line in lines.dropFirst() where !line.isEmpty && !line.lowercased().hasPrefix("proxy-authorization:") {
                forwarded += line + "\r\n"
            }
            _ = Loopback.sendAll(origin, Array((forwarded + "\r\n").utf8) + rest)
        }
        relay(client, origin)
    }

    /// Whether the head's Proxy-Authorization answers as ``authScheme`` allows: Basic with the
    /// credentials, or Digest (MD5, `qop=auth` or none) whose response checks out for `method` and
    /// the uri it names (curl and fetch send the origin-form target, or `host:port` for CONNECT).
    private func authorized(_ lines: [Substring], method: String, uri: String) -> Bool {
        guard let credentials else { return true }
        for line in lines.dropFirst() {
            let lower = line.lowercased()
            guard lower.hasPrefix("proxy-authorization:") else { continue }
            let value = line.dropFirst("proxy-authorization:".count).drop { $0 == " " }
            if authScheme != .digest, value == "Basic " + Self.base64(Array("\(credentials.user):\(credentials.password)".utf8)) {
                return true
            }
            guard authScheme != .basic, value.lowercased().hasPrefix("digest ") else { continue }
            let parameters = Self.digestParameters(value.dropFirst("digest ".count))
            guard parameters["username"] == credentials.user, parameters["nonce"] == "n0nce",
                  let realm = parameters["realm"], let answeredURI = parameters["uri"], let response = parameters["response"] else { return false }
            func md5(_ text: String) -> String {
                MessageDigest.hash(.md5, Array(text.utf8)).map { ($0 < 16 ? "0" : "") + String($0, radix: 16) }.joined()
            }
            let ha1 = md5("\(credentials.user):\(realm):\(credentials.password)"), ha2 = md5("\(method):\(answeredURI)")
            let expected = if let qop = parameters["qop"], let nc = parameters["nc"], let cnonce = parameters["cnonce"] {
                md5("\(ha1):n0nce:\(nc):\(cnonce):\(qop):\(ha2)")
            } else {
                md5("\(ha1):n0nce:\(ha2)")
            }
            // The uri must be the request's: the origin-form target, or CONNECT's authority.
            let target = uri.hasPrefix("http://") ? String(uri.dropFirst(7).drop { $0 != "/" }) : uri
            return response == expected && (answeredURI == target || answeredURI == uri)
        }
        return false
    }

    /// `name=value, name="quoted"` pairs of a Digest answer (names lowercased).
    public static func digestParameters(_ text: Substring) -> [String: String] {
        var result: [String: String] = [:]
        var rest = text[...]
        while !rest.isEmpty {
            rest = rest.drop { $0 == " " || $0 == "," }
            guard let equals = rest.firstIndex(of: "=") else { break }
            let name = rest[..<equals].lowercased()
            rest = rest[rest.index(after: equals)...]
            var value = ""
            if rest.first == "\"" {
                rest = rest.dropFirst()
                while let character = rest.first, character != "\"" {
                    if character == "\\" { rest = rest.dropFirst() }
                    if let next = rest.first { value.append(next); rest = rest.dropFirst() }
                }
                rest = rest.dropFirst()
            } else {
                let end = rest.firstIndex(of: ",") ?? rest.endIndex
                value = String(rest[..<end].filter { $0 != " " })
                rest = rest[end...]
            }
            result[name] = value
        }
        return result
    }

    private func readUntilHeadEnd(_ fd: Int32, into buffer: inout [UInt8]) -> Int? {
        while buffer.count < 65536 {
            if let end = Self.find([13, 10, 13, 10], in: buffer) { return end }
            guard let bytes = receive(fd), !bytes.isEmpty else { return nil }
            buffer += bytes
        }
        return nil
    }

    // MARK: SOCKS5

    private func serveSOCKS(_ client: Int32) {
        guard let greeting = receiveExactly(client, 2), greeting[0] == 5 else { return }
        if behavior == .hangUp { return }
        guard let methods = receiveExactly(client, Int(greeting[1])) else { return }
        var user: String?
        if let credentials {
            guard methods.contains(2) else { _ = Loopback.sendAll(client, [5, 0xFF]); return }
            _ = Loopback.sendAll(client, [5, 2])
            guard let version = receiveExactly(client, 2), version[0] == 1,
                  let name = receiveExactly(client, Int(version[1])),
                  let passwordLength = receiveExactly(client, 1),
                  let password = receiveExactly(client, Int(passwordLength[0])) else { return }
            user = String(decoding: name, as: UTF8.self)
            guard user == credentials.user, String(decoding: password, as: UTF8.self) == credentials.password else {
                _ = Loopback.sendAll(client, [1, 1])
                return
            }
            _ = Loopback.sendAll(client, [1, 0])
        } else {
            guard methods.contains(0) else { _ = Loopback.sendAll(client, [5, 0xFF]); return }
            _ = Loopback.sendAll(client, [5, 0])
        }
        guard let request = receiveExactly(client, 4), request[0] == 5, request[1] == 1 else { return }
        let host: String
        switch request[3] {
        case 1:
            guard let address = receiveExactly(client, 4) else { return }
            host = address.map(String.init).joined(separator: ".")
        case 3:
            guard let length = receiveExactly(client, 1), let name = receiveExactly(client, Int(length[0])) else { return }
            host = String(decoding: name, as: UTF8.self)
        case 4:
            guard let address = receiveExactly(client, 16) else { return }
            host = stride(from: 0, to: 16, by: 2).map { String(UInt16(address[$0]) << 8 | UInt16(address[$0 + 1]), radix: 16) }.joined(separator: ":")
        default:
            return
        }
        guard let portBytes = receiveExactly(client, 2) else { return }
        let port = Int(portBytes[0]) << 8 | Int(portBytes[1])
        records.withLock { $0.append(Record(head: "", destination: "\(host):\(port)", socksAddressType: request[3], socksUser: user)) }
        if case .refuse(let code) = behavior {
            _ = Loopback.sendAll(client, [5, UInt8(code), 0, 1, 0, 0, 0, 0, 0, 0])
            return
        }
        guard let origin = connectOrigin("\(host):\(port)") else {
            _ = Loopback.sendAll(client, [5, 5, 0, 1, 0, 0, 0, 0, 0, 0])
            return
        }
        defer { close(origin) }
        _ = Loopback.sendAll(client, [5, 0, 0, 1, 127, 0, 0, 1, UInt8(port >> 8 & 0xFF), UInt8(port & 0xFF)])
        relay(client, origin)
    }

    // MARK: Helpers

    /// Connects to 127.0.0.1 at `tunnelPort`, or at the port of `destination` (`host:port`).
    private func connectOrigin(_ destination: String) -> Int32? {
        guard let port = tunnelPort ?? destination.split(separator: ":").last.flatMap({ Int($0) }) else { return nil }
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard fd >= 0 else { return nil }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = UInt16(port).bigEndian
        address.sin_addr.s_addr = UInt32(0x7F00_0001).bigEndian
        let connected = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) == 0 }
        }
        if !connected { close(fd); return nil }
        return fd
    }

    /// Copies bytes both ways until either side closes or the proxy stops.
    private func relay(_ a: Int32, _ b: Int32) {
        while !stopping.load(ordering: .acquiring) {
            var fds = [pollfd(fd: a, events: Int16(POLLIN), revents: 0), pollfd(fd: b, events: Int16(POLLIN), revents: 0)]
            guard poll(&fds, 2, 20) >= 0 || errno == EINTR else { return }
            for (index, entry) in fds.enumerated() where entry.revents != 0 {
                let from = index == 0 ? a : b, to = index == 0 ? b : a
                guard let bytes = Loopback.receive(from), !bytes.isEmpty, Loopback.sendAll(to, bytes) else { return }
            }
        }
    }

    private func receive(_ fd: Int32) -> [UInt8]? {
        var waited = 0
        while !stopping.load(ordering: .acquiring) && waited < 250 {
            if Loopback.waitReadable(fd, milliseconds: 20) { return Loopback.receive(fd) }
            waited += 1
        }
        return nil
    }

    private func receiveExactly(_ fd: Int32, _ count: Int) -> [UInt8]? {
        var bytes: [UInt8] = []
        while bytes.count < count {
            guard Loopback.waitReadable(fd, milliseconds: 5000) else { return nil }
            guard let more = Loopback.receive(fd, capacity: count - bytes.count), !more.isEmpty else { return nil }
            bytes += more
        }
        return bytes
    }

    private static func find(_ needle: [UInt8], in haystack: [UInt8]) -> Int? {
        guard haystack.count >= needle.count else { return nil }
        for start in 0...(haystack.count - needle.count) where haystack[start..<start + needle.count].elementsEqual(needle) {
            return start
        }
        return nil
    }

    /// Standard base64 with padding (the test target has no Foundation in the minimal build).
    static func base64(_ bytes: [UInt8]) -> String {
        let alphabet = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/".utf8)
        var out: [UInt8] = []
        var index = 0
        while index < bytes.count {
            let chunk = bytes[index..<min(index + 3, bytes.count)]
            let value = chunk.enumerated().reduce(0) { $0 | Int($1.element) << (16 - 8 * $1.offset) }
            for position in 0..<4 {
                out.append(position <= chunk.count ? alphabet[(value >> (18 - 6 * position)) & 63] : UInt8(ascii: "="))
            }
            index += 3
        }
        return String(decoding: out, as: UTF8.self)
    }
}
