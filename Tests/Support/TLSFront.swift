// A real HTTPS proxy for tests: scripts/tls-front.py (Python's ssl module, OpenSSL underneath)
// terminates TLS with a lab certificate and relays the plaintext to a TestProxyServer, which
// records what it received. TLS to the proxy is thereby an independent implementation of the
// server side, not the in-repo TLS server the client's own engine was written against.
#if FullFoundation
import Foundation

/// `scripts/tls-front.py` running in front of a plain proxy; call ``stop()``.
package final class TLSFront: @unchecked Sendable {
    // @unchecked Sendable: `process` and `input` are set in init and only read after; Process
    // and FileHandle are thread-safe for the calls made (terminate, wait, close).

    /// The TLS port clients connect to.
    package let port: Int
    private let process: Process
    private let input: Pipe

    /// Starts the front on 127.0.0.1.
    /// - Parameters:
    ///   - certificateFile: PEM chain the front presents.
    ///   - keyFile: Its key.
    ///   - targetPort: The plain proxy's port on 127.0.0.1.
    package init(certificateFile: String, keyFile: String, targetPort: Int) throws {
        var root = URL(fileURLWithPath: #filePath)
        for _ in 0..<3 { root.deleteLastPathComponent() }  // Tests/Support/TLSFront.swift
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/python3")
        process.arguments = [root.appendingPathComponent("scripts/tls-front.py").path, certificateFile, keyFile, String(targetPort)]
        let input = Pipe(), output = Pipe()
        process.standardInput = input
        process.standardOutput = output
        process.standardError = FileHandle.nullDevice
        try process.run()
        var line = Data()
        while let byte = try output.fileHandleForReading.read(upToCount: 1), !byte.isEmpty, byte != Data("\n".utf8) {
            line += byte
        }
        guard let port = Int(String(decoding: line, as: UTF8.self)) else {
            process.terminate()
            throw HTTPSLab.Failure(description: "tls-front.py did not start: \(String(decoding: line, as: UTF8.self))")
        }
        self.port = port
        self.process = process
        self.input = input
    }

    /// Stops the front (closing its standard input ends it) and waits for it.
    package func stop() {
        try? input.fileHandleForWriting.close()
        process.waitUntilExit()
    }
}
#endif
