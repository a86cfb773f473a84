// curl's connection options that act on the socket: `--interface`, `--local-port`,
// `--tcp-fastopen` and `--haproxy-protocol`, parsed as curl 7.88 parses them and turned into
// the session's SocketSetup (EventLoop/SocketSetup.swift).
import Client
import EventLoop
import FoundationEssentials
#if FullFoundation
import Foundation  // URLError is Foundation's own in the default build; Client's without the trait
#endif
#if canImport(Glibc)
import Glibc
#endif
import Transport

/// The local end fetch's connections use.
enum LocalBinding {
    /// `--local-port N[-M]` as curl 7.88's tool_getparam.c reads it: digits, then optionally
    /// ` - ` and the last port; port 0 means none (an ephemeral port).
    /// - Throws: curl's "is badly used here" for anything else, a port over 65535 or M < N.
    static func ports(_ text: String) throws(FetchUsageError) -> ClosedRange<Int>? {
        let badUse = FetchUsageError(description: "option --local-port: is badly used here")
        let digits = text.prefix(while: { $0.isASCII && $0.isNumber })
        guard !digits.isEmpty, digits.count <= 6, let first = Int(digits), first <= 65535 else { throw badUse }
        var rest = text.dropFirst(digits.count)
        var last = first
        if !rest.isEmpty {
            rest = rest.drop(while: { $0 == " " })
            guard rest.hasPrefix("-") else { throw badUse }
            rest = rest.dropFirst().drop(while: { $0 == " " })
            guard !rest.isEmpty, rest.count <= 6, rest.allSatisfy({ $0.isASCII && $0.isNumber }), let value = Int(rest), value <= 65535,
                  value >= first else { throw badUse }
            last = value
        }
        return first == 0 ? nil : first...last
    }

    /// The socket setup for `--interface` (`NAME`, `if!NAME`, `host!NAME`, or an address),
    /// `--local-port` and `--tcp-fastopen`. A plain value is an IP literal, else an interface
    /// when one has that name, else a host name resolved here (curl tries them in that order).
    /// - Throws: curl's 45 "Couldn't bind to 'NAME'" for a host name that does not resolve.
    static func setup(_ options: FetchOptions) throws(FetchSetupError) -> SocketSetup {
        var setup = SocketSetup(localPorts: options.localPorts, fastOpen: options.tcpFastOpen)
        // curl ignores an empty name.
        guard let interface = options.interface, !interface.isEmpty else { return setup }
        if interface.hasPrefix("if!") {
            setup.device = String(interface.dropFirst(3))
        } else if interface.hasPrefix("host!") {
            setup.localAddress = try address(String(interface.dropFirst(5)))
        } else if let literal = SocketAddress(ipLiteral: interface) {
            setup.localAddress = literal
        } else if if_nametoindex(interface) != 0 {
            setup.device = interface
        } else {
            setup.localAddress = try address(interface)
        }
        return setup
    }

    /// The first address `host` resolves to.
    private static func address(_ host: String) throws(FetchSetupError) -> SocketAddress {
        if let literal = SocketAddress(ipLiteral: host) { return literal }
        for family in [FetchOptions.IPVersion.v4, .v6] {
            if let text = AddressFamilyFilter(family).resolve(host).first, let found = SocketAddress(ipLiteral: text) { return found }
        }
        throw FetchSetupError(status: 45, description: "(45) Couldn't bind to '\(host)'")
    }

    /// curl's 45 for a connect that failed binding: "bind failed with errno N: TEXT", or
    /// "Couldn't bind to interface 'NAME'" when `SO_BINDTODEVICE` failed (no such interface, or
    /// no `CAP_NET_RAW`).
    static func curlWording(for error: AFError) -> (status: Int32, message: String)? {
        guard case .sessionTaskFailed(let underlying) = error, let urlError = underlying as? URLError,
              let transport = urlError.underlyingError as? TransportError, let socket = transport.underlying as? SocketError
        else { return nil }
        switch socket.syscall {
        case "bind" where socket.errno == EAFNOSUPPORT:
            return (7, "Failed to connect: Couldn't connect to server")
        case "bind":
            return (45, "bind failed with errno \(socket.errno): \(String(cString: strerror(socket.errno)))")
        case "SO_BINDTODEVICE":
            return (45, "Couldn't bind to interface '\(socket.host ?? "")'")
        default:
            return nil
        }
    }
}

extension SocketAddress {
    /// An IPv4 or IPv6 literal (no brackets) with port 0, or nil.
    init?(ipLiteral text: String) {
        guard let parsed = try? SocketAddress(ipAddress: text, port: 0) else { return nil }
        self = parsed
    }
}
