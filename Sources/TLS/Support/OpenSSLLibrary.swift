// OpenSSL's process-wide setup, in one place.

internal import COpenSSL

/// The OpenSSL library as a process uses it.
package enum OpenSSLLibrary {
    /// Initialises OpenSSL without the cleanup it otherwise registers with `atexit`.
    ///
    /// A program that calls `exit` while an event-loop thread is still closing a TLS connection
    /// (a `Session` released just before, a server's close arriving) would otherwise have
    /// OpenSSL free its global state underneath that thread: SIGSEGV or SIGABRT at exit. The
    /// process ends anyway, so nothing is lost by skipping the cleanup. It takes effect only as
    /// the first OpenSSL call of the process: executables call it first thing in `main`.
    ///
    /// - Returns: Whether OpenSSL accepted the initialisation.
    @discardableResult
    package static func initializeWithoutExitCleanup() -> Bool {
        lariat_OPENSSL_init_without_atexit() == 1
    }
}
