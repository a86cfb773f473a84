#if FullFoundation
import Foundation
#else
import FoundationEssentials
#endif
import Synchronization

/// A user name and password for HTTP authentication (Basic or Digest).
///
/// Lariat's own type: Foundation's lives in FoundationNetworking on Linux, which Lariat never
/// links. Only password credentials exist here (client certificates are set on the session's
/// `TLSConfiguration`; server trust is evaluated by ``ServerTrustManager``).
public final class URLCredential: Sendable, Hashable, CustomStringConvertible {
    /// How long a credential is kept.
    public enum Persistence: UInt, Sendable {
        /// For this request only.
        case none = 0
        /// For the session (Lariat keeps nothing longer: there is no keychain).
        case forSession = 1
        /// Apple's keychain; kept for the session here.
        case permanent = 2
        /// Apple's iCloud keychain; kept for the session here.
        case synchronizable = 3
    }

    /// The user name, `nil` for none.
    public let user: String?
    /// The password, `nil` for none.
    public let password: String?
    /// How long the credential is kept.
    public let persistence: Persistence

    /// Whether a password is set (an empty one counts).
    public var hasPassword: Bool { password != nil }

    /// A user and password credential.
    /// - Parameters:
    ///   - user: The user name.
    ///   - password: The password; may be empty.
    ///   - persistence: How long it is kept.
    public init(user: String, password: String, persistence: Persistence) {
        self.user = user
        self.password = password
        self.persistence = persistence
    }

    /// The user name only; the password is never printed.
    public var description: String { "URLCredential(user: \(user ?? "nil"), persistence: \(persistence))" }

    /// Equal when user, password and persistence are.
    /// - Parameters:
    ///   - lhs: A credential.
    ///   - rhs: Another one.
    /// - Returns: Whether they are equal.
    public static func == (lhs: URLCredential, rhs: URLCredential) -> Bool {
        lhs.user == rhs.user && lhs.password == rhs.password && lhs.persistence == rhs.persistence
    }

    /// Hashes user, password and persistence.
    /// - Parameter hasher: The hasher.
    public func hash(into hasher: inout Hasher) {
        hasher.combine(user)
        hasher.combine(password)
        hasher.combine(persistence)
    }
}

/// Where a credential applies: a server (host, port, scheme), a realm and an authentication method.
///
/// Lariat's own, small stand-in for Foundation's (which lives in FoundationNetworking on Linux).
public final class URLProtectionSpace: Sendable, Hashable, CustomStringConvertible {
    /// The server's host name, lowercased.
    public let host: String
    /// The server's port.
    public let port: Int
    /// `"http"` or `"https"`.
    public let `protocol`: String?
    /// The realm the server named in its challenge, `nil` for any.
    public let realm: String?
    /// ``NSURLAuthenticationMethodHTTPBasic``, ``NSURLAuthenticationMethodHTTPDigest`` or
    /// ``NSURLAuthenticationMethodDefault`` (any).
    public let authenticationMethod: String

    /// A protection space.
    /// - Parameters:
    ///   - host: The host name (compared case-insensitively).
    ///   - port: The port.
    ///   - protocol: `"http"` or `"https"`.
    ///   - realm: The realm; `nil` matches any realm.
    ///   - authenticationMethod: The method; `NSURLAuthenticationMethodDefault` by default (any).
    public init(host: String, port: Int, protocol: String?, realm: String?, authenticationMethod: String? = nil) {
        self.host = host.lowercased()
        self.port = port
        self.protocol = `protocol`?.lowercased()
        self.realm = realm
        self.authenticationMethod = authenticationMethod ?? NSURLAuthenticationMethodDefault
    }

    /// Host, port, protocol and realm.
    public var description: String { "\(`protocol` ?? "?")://\(host):\(port) realm=\(realm ?? "*") \(authenticationMethod)" }

    /// Equal when every member is.
    /// - Parameters:
    ///   - lhs: A protection space.
    ///   - rhs: Another one.
    /// - Returns: Whether they are equal.
    public static func == (lhs: URLProtectionSpace, rhs: URLProtectionSpace) -> Bool {
        lhs.host == rhs.host && lhs.port == rhs.port && lhs.protocol == rhs.protocol && lhs.realm == rhs.realm
            && lhs.authenticationMethod == rhs.authenticationMethod
    }

    /// Hashes every member.
    /// - Parameter hasher: The hasher.
    public func hash(into hasher: inout Hasher) {
        hasher.combine(host)
        hasher.combine(port)
        hasher.combine(`protocol`)
        hasher.combine(realm)
        hasher.combine(authenticationMethod)
    }

    /// Whether a credential stored for this space answers a challenge for `other`: same server;
    /// a `nil` realm or the default method here matches any, and a challenge naming no realm
    /// (`WWW-Authenticate: Basic`, which Vapor sends) is answered by the server's credential
    /// whatever realm it was stored for, as URLSession does (AuthenticationTests, stored credentials).
    func covers(_ other: URLProtectionSpace) -> Bool {
        host == other.host && port == other.port && `protocol` == other.protocol
            && (realm == nil || other.realm == nil || realm == other.realm)
            && (authenticationMethod == NSURLAuthenticationMethodDefault || authenticationMethod == other.authenticationMethod)
    }
}

/// Any HTTP authentication method.
public let NSURLAuthenticationMethodDefault = "NSURLAuthenticationMethodDefault"
/// HTTP Basic (RFC 7617).
public let NSURLAuthenticationMethodHTTPBasic = "NSURLAuthenticationMethodHTTPBasic"
/// HTTP Digest (RFC 7616).
public let NSURLAuthenticationMethodHTTPDigest = "NSURLAuthenticationMethodHTTPDigest"

/// Credentials a session answers authentication challenges with, by protection space: set one
/// as ``URLSessionConfiguration/urlCredentialStorage``.
///
/// Lariat's own, small stand-in for Foundation's: in memory only (no keychain), thread-safe.
/// `.shared` is one process-wide instance, as Apple's.
public final class URLCredentialStorage: Sendable {
    /// The process-wide storage, used by configurations by default.
    public static let shared = URLCredentialStorage()

    private struct Entry {
        var space: URLProtectionSpace
        var user: String
        var credential: URLCredential
        var isDefault: Bool
    }
    private let entries = Mutex<[Entry]>([])

    /// An empty storage.
    public init() {}

    /// Every stored credential by protection space, then by user name.
    public var allCredentials: [URLProtectionSpace: [String: URLCredential]] {
        entries.withLock { entries in
            entries.reduce(into: [:]) { $0[$1.space, default: [:]][$1.user] = $1.credential }
        }
    }

    /// The credentials stored for exactly `space`, by user name.
    /// - Parameter space: The protection space.
    /// - Returns: The credentials; `nil` when there are none.
    public func credentials(for space: URLProtectionSpace) -> [String: URLCredential]? {
        let found = entries.withLock { $0.filter { $0.space == space } }
        return found.isEmpty ? nil : found.reduce(into: [:]) { $0[$1.user] = $1.credential }
    }

    /// Stores `credential` for `space`, replacing one for the same user. A credential with
    /// persistence `.none` is not stored, as Apple's.
    /// - Parameters:
    ///   - credential: The credential.
    ///   - space: The protection space.
    public func set(_ credential: URLCredential, for space: URLProtectionSpace) {
        store(credential, for: space, asDefault: false)
    }

    /// Stores `credential` for `space` and makes it the one challenges for `space` are answered with.
    /// - Parameters:
    ///   - credential: The credential.
    ///   - space: The protection space.
    public func setDefaultCredential(_ credential: URLCredential, for space: URLProtectionSpace) {
        store(credential, for: space, asDefault: true)
    }

    /// The default credential for `space`, else the only one stored for it.
    /// - Parameter space: The protection space.
    /// - Returns: The credential, `nil` when none.
    public func defaultCredential(for space: URLProtectionSpace) -> URLCredential? {
        entries.withLock { entries in
            entries.first { $0.space == space && $0.isDefault }?.credential
                ?? (entries.filter { $0.space == space }.count == 1 ? entries.first { $0.space == space }?.credential : nil)
        }
    }

    /// Removes `credential` from `space`.
    /// - Parameters:
    ///   - credential: The credential (matched by user name).
    ///   - space: The protection space.
    public func remove(_ credential: URLCredential, for space: URLProtectionSpace) {
        entries.withLock { $0.removeAll { $0.space == space && $0.user == (credential.user ?? "") } }
    }

    /// The credential to answer a challenge for `space` with: the default one of a stored space
    /// that covers it (a stored `nil` realm or default method matches any), else the first.
    func credential(answering space: URLProtectionSpace) -> URLCredential? {
        entries.withLock { entries in
            let covering = entries.filter { $0.space.covers(space) }
            return (covering.first { $0.isDefault } ?? covering.first)?.credential
        }
    }

    private func store(_ credential: URLCredential, for space: URLProtectionSpace, asDefault: Bool) {
        guard credential.persistence != .none else { return }
        let user = credential.user ?? ""
        entries.withLock { entries in
            if asDefault { for index in entries.indices where entries[index].space == space { entries[index].isDefault = false } }
            entries.removeAll { $0.space == space && $0.user == user }
            // Bounded by what the program stores, not by any server.
            entries.append(Entry(space: space, user: user, credential: credential, isDefault: asDefault))
        }
    }
}

/// A credential storage compared by identity, so `URLSessionConfiguration.Settings` stays `Equatable`.
struct CredentialStorageReference: Equatable, Sendable {
    /// The storage, `nil` for none.
    var storage: URLCredentialStorage?

    static func == (lhs: Self, rhs: Self) -> Bool { lhs.storage === rhs.storage }
}
