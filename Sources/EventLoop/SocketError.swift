// SocketError: the one error type the EventLoop module throws.
//
// Shape (STYLE.md §5): a public struct whose `kind` is itself a struct over a private
// enum, so new kinds can be added without breaking anyone's `switch` (callers compare
// with `==` or pattern-match `case .connectionRefused:` and keep a `default:`).
// The errno and the syscall name travel with every error built from a failed call;
// `host` travels with name-resolution failures.

/// An error from a socket, connection attempt, name lookup or event loop operation.
///
/// Compare ``kind`` against the static kinds (`error.kind == .connectionRefused`);
/// ``errno`` and ``syscall`` say which system call failed and why.
public struct SocketError: Error, Hashable, Sendable, CustomStringConvertible {
    /// The category of a ``SocketError``, chosen so a client can map it to a URL error code.
    ///
    /// New kinds may be added in later versions: `switch` over it with a `default:` branch.
    public struct Kind: Hashable, Sendable, CustomStringConvertible {
        private enum Base: String, Hashable, Sendable {
            case connectionRefused
            case hostNotFound
            case timedOut
            case connectionReset
            case networkUnreachable
            case hostUnreachable
            case cancelled
            case socketClosed
            case eventLoopShutdown
            case invalidAddress
            case other
        }

        private let base: Base

        private init(_ base: Base) { self.base = base }

        /// The peer refused the connection (`ECONNREFUSED`): nothing listens on that port.
        public static let connectionRefused = Kind(.connectionRefused)
        /// The host name could not be resolved (`getaddrinfo`: `EAI_NONAME`, `EAI_AGAIN`,
        /// `EAI_FAIL`, `EAI_NODATA`, or an empty answer). ``SocketError/host`` holds the name.
        public static let hostNotFound = Kind(.hostNotFound)
        /// A connection attempt did not finish within its timeout (or the kernel gave up: `ETIMEDOUT`).
        public static let timedOut = Kind(.timedOut)
        /// The peer reset the connection (`ECONNRESET`) or it was already closed for writing (`EPIPE`).
        public static let connectionReset = Kind(.connectionReset)
        /// No route to the network (`ENETUNREACH`, `ENETDOWN`).
        public static let networkUnreachable = Kind(.networkUnreachable)
        /// No route to the host (`EHOSTUNREACH`, `EHOSTDOWN`).
        public static let hostUnreachable = Kind(.hostUnreachable)
        /// The operation was cancelled by its owner (for example ``ConnectAttempt/cancel()``).
        public static let cancelled = Kind(.cancelled)
        /// The operation needs an open socket but ``Socket/close()`` was already called.
        public static let socketClosed = Kind(.socketClosed)
        /// The socket's event loop was shut down while the socket was still open.
        public static let eventLoopShutdown = Kind(.eventLoopShutdown)
        /// A string given as an IP address is not a valid IPv4 or IPv6 literal, or a port is out of range.
        public static let invalidAddress = Kind(.invalidAddress)
        /// Any other failure; ``SocketError/errno`` and ``SocketError/syscall`` say what happened.
        public static let other = Kind(.other)

        /// The kind's name, such as `connectionRefused`.
        public var description: String { base.rawValue }
    }

    /// What went wrong, coarsely.
    public let kind: Kind
    /// The `errno` value of the failed call, or 0 when no system call failed
    /// (timeouts, cancellation, name-resolution failures other than `EAI_SYSTEM`).
    public let errno: Int32
    /// The name of the failed system or library call (`"connect"`, `"getaddrinfo"`…), if any.
    public let syscall: String?
    /// The host involved, when known: the name whose lookup failed (``Kind/hostNotFound``), or the
    /// host a connect attempt timed out on (``Kind/timedOut``); otherwise nil.
    public let host: String?
    /// The `getaddrinfo` return code (`EAI_*`, negative on glibc) for resolution failures; otherwise 0.
    public let resolverCode: Int32

    /// Creates an error with explicit fields.
    ///
    /// - Parameters:
    ///   - kind: The category.
    ///   - errno: The `errno` value, 0 (the default) when no system call failed.
    ///   - syscall: The failed call's name, nil (the default) when there is none.
    ///   - host: The host name for resolution failures, nil by default.
    ///   - resolverCode: The `getaddrinfo` code for resolution failures, 0 by default.
    public init(kind: Kind, errno: Int32 = 0, syscall: String? = nil, host: String? = nil, resolverCode: Int32 = 0) {
        self.kind = kind
        self.errno = errno
        self.syscall = syscall
        self.host = host
        self.resolverCode = resolverCode
    }

    /// Creates an error from a failed system call, classifying `errno` into a ``Kind``.
    ///
    /// - Parameters:
    ///   - errno: The `errno` value the call left.
    ///   - syscall: The call's name, such as `"connect"`.
    public init(errno: Int32, syscall: String) {
        self.init(kind: ErrnoClass.kind(of: errno), errno: errno, syscall: syscall)
    }

    /// A readable summary such as `connectionRefused (connect: errno 111, Connection refused)`.
    public var description: String {
        var text = kind.description
        var details: [String] = []
        if let host { details.append("host \(host)") }
        if let syscall {
            if errno != 0 {
                details.append("\(syscall): errno \(errno), \(ErrnoClass.message(for: errno))")
            } else if resolverCode != 0 {
                details.append("\(syscall): \(ErrnoClass.resolverMessage(for: resolverCode))")
            } else {
                details.append(syscall)
            }
        }
        if !details.isEmpty { text += " (" + details.joined(separator: ", ") + ")" }
        return text
    }
}
