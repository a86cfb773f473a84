internal import COpenSSL
internal import Glibc
import Synchronization

/// TLS sessions (TLS 1.3 tickets, TLS 1.2 tickets or IDs) for resumption, keyed by
/// host, port and client context, shareable by every connection of a pool.
///
/// A connection stores the sessions its server issues and offers the newest one on the next
/// handshake to the same host and port with the same ``TLSClientContext`` (a session is never
/// offered under another context, whose trust settings may differ). With each session the
/// cache keeps the certificate chain and stapled OCSP response that were verified, so a
/// resumed connection (where the server sends no certificate) can run the same trust
/// evaluation again on them. Entries past their lifetime are dropped on lookup; when full,
/// the least recently stored entry is evicted. Thread-safe (a `Mutex`).
public final class TLSSessionCache: Sendable {
    /// The default ``capacity``: 256 host/port pairs.
    public static let defaultCapacity = 256

    /// The most entries kept; one entry per host, port and context.
    public let capacity: Int

    struct Key: Hashable {
        let host: String
        let port: Int
        let contextID: UInt64
    }

    /// A resumable session and what was verified when it was established.
    struct Entry: Sendable {
        let session: SessionHandle
        let peerChain: [Certificate]
        let stapledOCSPResponse: [UInt8]?
    }

    private struct State {
        var entries: [Key: (entry: Entry, stamp: UInt64)] = [:]
        var clock: UInt64 = 0
    }

    private let state = Mutex(State())

    /// Creates an empty cache.
    ///
    /// - Parameter capacity: most entries kept, ``defaultCapacity`` by default; at least 1.
    public init(capacity: Int = TLSSessionCache.defaultCapacity) {
        self.capacity = max(1, capacity)
    }

    /// The number of cached sessions.
    public var count: Int { state.withLock { $0.entries.count } }

    /// Forgets every session.
    public func removeAll() { state.withLock { $0.entries.removeAll() } }

    /// Forgets the sessions for one server under any context.
    ///
    /// - Parameters:
    ///   - host: the server name as given to the connection.
    ///   - port: the port.
    public func removeSessions(host: String, port: Int) {
        state.withLock { state in
            state.entries = state.entries.filter { !($0.key.host == host && $0.key.port == port) }
        }
    }

    func store(_ entry: Entry, for key: Key) {
        state.withLock { state in
            state.clock += 1
            state.entries[key] = (entry, state.clock)
            if state.entries.count > capacity,
                let oldest = state.entries.min(by: { $0.value.stamp < $1.value.stamp })?.key {
                state.entries[oldest] = nil
            }
        }
    }

    /// The entry for `key` when its session is still resumable.
    func lookup(_ key: Key) -> Entry? {
        state.withLock { state in
            guard let entry = state.entries[key]?.entry else { return nil }
            guard entry.session.isResumable else {
                state.entries[key] = nil
                return nil
            }
            return entry
        }
    }

    func remove(_ key: Key) { state.withLock { $0.entries[key] = nil } }
}

/// An owned `SSL_SESSION` reference. Sessions are immutable once issued and reference
/// counted by OpenSSL, so sharing one between threads for `SSL_set_session` is safe.
final class SessionHandle: @unchecked Sendable {
    let session: OpaquePointer

    /// Takes over one reference.
    init(takingOwnershipOf session: OpaquePointer) { self.session = session }

    /// Copies a session the connection still uses. The copy matters: OpenSSL marks a
    /// connection's own session non-resumable when that connection is freed without a
    /// close_notify exchange (`ssl_clear_bad_session`), which is how HTTP connections usually end.
    static func copying(_ session: OpaquePointer) -> SessionHandle? {
        guard let copy = SSL_SESSION_dup(session) else { return nil }
        return SessionHandle(takingOwnershipOf: copy)
    }

    deinit { SSL_SESSION_free(session) }

    /// Resumable by OpenSSL's rules and within its lifetime (time + timeout, or the ticket lifetime hint).
    var isResumable: Bool {
        guard SSL_SESSION_is_resumable(session) == 1 else { return false }
        let start = Int64(SSL_SESSION_get_time(session))
        var lifetime = Int64(SSL_SESSION_get_timeout(session))
        if SSL_SESSION_has_ticket(session) == 1 {
            let hint = Int64(SSL_SESSION_get_ticket_lifetime_hint(session))
            if hint > 0 { lifetime = min(lifetime, hint) }
        }
        return Int64(time(nil)) < start + lifetime
    }
}
