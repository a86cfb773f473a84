// A helper server from `scripts/` run with python3 (tls-front.py, doh-server.py): it prints its
// loopback port on the first line of its standard output and ends when its standard input closes.
#if FullFoundation
import Foundation

/// A `scripts/` server run with python3; call ``stop()``.
package final class ScriptServer: @unchecked Sendable {
    // @unchecked Sendable: `process` and `input` are set in init and only read after; Process
    // and FileHandle are thread-safe for the calls made (terminate, wait, close).

    /// The port the script printed.
    package let port: Int
    private let process: Process
    private let input: Pipe

    /// Starts `scripts/<script>` with `arguments` and reads its port.
    /// - Throws: ``HTTPSLab/Failure`` when the script prints no port (it is ended first).
    package init(script: String, arguments: [String]) throws {
        var root = URL(fileURLWithPath: #filePath)
        for _ in 0..<3 { root.deleteLastPathComponent() }  // Tests/Support/ScriptServer.swift
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/python3")
        process.arguments = [root.appendingPathComponent("scripts/" + script).path] + arguments
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
            process.waitUntilExit()
            throw HTTPSLab.Failure(description: "\(script) did not start: \(String(decoding: line, as: UTF8.self))")
        }
        self.port = port
        self.process = process
        self.input = input
    }

    /// Stops the server (closing its standard input ends it) and waits for it.
    package func stop() {
        try? input.fileHandleForWriting.close()
        process.waitUntilExit()
    }
}
#endif
