// A real HTTPS proxy for tests: scripts/tls-front.py (Python's ssl module, OpenSSL underneath)
// terminates TLS with a lab certificate and relays the plaintext to a TestProxyServer, which
// records what it received. TLS to the proxy is thereby an independent implementation of the
// server side, not the in-repo TLS server the client's own engine was written against.
#if FullFoundation
import Foundation

/// `scripts/tls-front.py` running in front of a plain proxy; call ``stop()``.
package final class TLSFront: Sendable {
    private let server: ScriptServer

    /// The TLS port clients connect to.
    package var port: Int { server.port }

    /// Starts the front on 127.0.0.1.
    /// - Parameters:
    ///   - certificateFile: PEM chain the front presents.
    ///   - keyFile: Its key.
    ///   - targetPort: The plain proxy's port on 127.0.0.1.
    package init(certificateFile: String, keyFile: String, targetPort: Int) throws {
        server = try ScriptServer(script: "tls-front.py", arguments: [certificateFile, keyFile, String(targetPort)])
    }

    /// Stops the front and waits for it.
    package func stop() { server.stop() }
}
#endif
