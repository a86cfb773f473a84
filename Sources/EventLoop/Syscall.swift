// Syscall: the one place where errno is classified (after swift-nio's System.swift).
//
//   EINTR                      -> retried here, never seen by callers
//   EAGAIN / EWOULDBLOCK       -> `.wouldBlock`, a normal outcome, not an error
//   EINPROGRESS (connect only) -> `.inProgress`, a normal outcome
//   EBADF, EFAULT, ENOTSOCK    -> a bug in this module (a stale or foreign fd): trap
//   anything else              -> `SocketError(errno:syscall:)`, kind chosen by `ErrnoClass.kind(of:)`
internal import CLinux
internal import Glibc

/// What a non-blocking call produced once EINTR has been retried.
enum IOOutcome: Equatable {
    /// The call succeeded and returned this non-negative value.
    case done(Int)
    /// The call would have blocked (EAGAIN / EWOULDBLOCK).
    case wouldBlock
    /// A non-blocking `connect` started and will finish later (EINPROGRESS).
    case inProgress
}

/// Maps errno values to outcomes and error kinds.
enum ErrnoClass {
    /// How one errno value is treated.
    enum Treatment: Equatable {
        case retry, wouldBlock, inProgress, bug, failure
    }

    /// The treatment of `errno` for the call named `syscall`.
    ///
    /// EINPROGRESS is only benign for `connect`; elsewhere it is a failure like any other.
    static func treatment(of errno: Int32, syscall: StaticString) -> Treatment {
        switch errno {
        case EINTR: return .retry
        case EAGAIN, EWOULDBLOCK: return .wouldBlock
        case EINPROGRESS where isConnect(syscall): return .inProgress
        case EBADF, EFAULT, ENOTSOCK: return .bug
        default: return .failure
        }
    }

    /// The ``SocketError/Kind`` a failed call with this errno maps to.
    static func kind(of errno: Int32) -> SocketError.Kind {
        switch errno {
        case ECONNREFUSED: return .connectionRefused
        case ECONNRESET, EPIPE, ECONNABORTED: return .connectionReset
        case ENETUNREACH, ENETDOWN: return .networkUnreachable
        case EHOSTUNREACH, EHOSTDOWN: return .hostUnreachable
        case ETIMEDOUT: return .timedOut
        default: return .other
        }
    }

    /// `strerror` text for an errno value.
    static func message(for errno: Int32) -> String {
        guard let text = strerror(errno) else { return "unknown error" }
        return String(cString: text)
    }

    /// `gai_strerror` text for a `getaddrinfo` return code.
    static func resolverMessage(for code: Int32) -> String {
        guard let text = gai_strerror(code) else { return "unknown resolver error \(code)" }
        return String(cString: text)
    }

    private static func isConnect(_ syscall: StaticString) -> Bool {
        syscall.withUTF8Buffer { $0.elementsEqual("connect".utf8) }
    }
}

/// Runs a system call that returns -1 and sets errno on failure, retrying EINTR.
///
/// - Parameters:
///   - name: The call's name, kept in the thrown error.
///   - body: The call itself; it must set errno when it returns a negative value.
/// - Returns: `.done(result)`, `.wouldBlock`, or for `connect` `.inProgress`.
/// - Throws: `SocketError` for every failure other than those outcomes; traps on EBADF-class bugs.
@inline(__always)
func retryingSyscall(_ name: StaticString, _ body: () -> Int) throws(SocketError) -> IOOutcome {
    while true {
        let result = body()
        if result >= 0 { return .done(result) }
        let code = errno
        switch ErrnoClass.treatment(of: code, syscall: name) {
        case .retry: continue
        case .wouldBlock: return .wouldBlock
        case .inProgress: return .inProgress
        case .bug: preconditionFailure("\(name) failed with errno \(code) (\(ErrnoClass.message(for: code))): a bug in EventLoop")
        case .failure: throw SocketError(errno: code, syscall: "\(name)")
        }
    }
}

/// Runs a call that must not block and must not fail (setup calls such as `epoll_create1`),
/// retrying EINTR and trapping with the errno otherwise.
///
/// Used only where failure means the process is out of resources at start-up and no
/// caller could recover (for example creating a loop's epoll instance).
@discardableResult
func mustSucceed(_ name: StaticString, _ body: () -> Int32) -> Int32 {
    while true {
        let result = body()
        if result >= 0 { return result }
        let code = errno
        if code == EINTR { continue }
        fatalError("\(name) failed with errno \(code) (\(ErrnoClass.message(for: code)))")
    }
}

/// Closes a file descriptor exactly once.
///
/// Linux releases the descriptor even when `close` reports EINTR, so retrying could close a
/// descriptor another thread just received; errors are therefore ignored (the fd is gone either way).
func closeDescriptor(_ fd: Int32) {
    precondition(fd >= 0, "closing an invalid file descriptor \(fd)")
    _ = close(fd)
}
