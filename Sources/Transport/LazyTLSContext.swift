// The TLS context of a session, built on the first https connection.
//
// Building a TLSClientContext loads the trust store: with the system bundle that is about 150,000
// allocations and several milliseconds (measured with heaptrack on a Session that only spoke
// http). A session that never speaks https, and `fetch` on an http URL, should not pay for it.

import Synchronization
package import TLS

package final class LazyTLSContext: Sendable {
    private let configuration: TLSConfiguration
    private let cache = TLSSessionCache()
    private let built = Mutex<Result<TLSClientContext, TLSError>?>(nil)

    package init(configuration: TLSConfiguration) {
        self.configuration = configuration
    }

    /// The context, or why it cannot be made (an unreadable CA file or client identity). Built
    /// once; concurrent first callers wait for the one build (no user code runs under the lock).
    package func get() -> Result<TLSClientContext, TLSError> {
        built.withLock { built in
            if let built { return built }
            let result = Result { () throws(TLSError) in
                try TLSClientContext(configuration: configuration, sessionCache: configuration.sessionResumption ? cache : nil)
            }
            built = result
            return result
        }
    }
}
