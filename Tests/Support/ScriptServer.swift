// A helper server from `scripts/` run with python3 (tls-front.py, doh-server.py): it prints its
// loopback port on the first line of its standard output and ends when its standard input closes.
//
// Tests start these servers from several threads at once. A pipe's descriptors are inherited by
// every child spawned while they are open, so another test's python3 could hold a copy of this
// server's standard input and keep it from seeing the close (CI saw 66 tls-front.py children
// outlive their stop()). The parent's ends are therefore close-on-exec, and `stop()` ends a
// server that has not left within a bound (a copy inherited before the flag was set) by SIGTERM
// to its own PID.
#if FullFoundation
import Foundation
#if canImport(Glibc)
import Glibc
#endif

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
        _ = fcntl(input.fileHandleForWriting.fileDescriptor, F_SETFD, FD_CLOEXEC)
        _ = fcntl(output.fileHandleForReading.fileDescriptor, F_SETFD, FD_CLOEXEC)
        process.standardInput = input
        process.standardOutput = output
        process.standardError = FileHandle.nullDevice
        try withCleanSignalMask { try process.run() }  // so SIGTERM can end it
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

    /// Stops the server (closing its standard input ends it; SIGTERM after 5 s) and waits for it.
    package func stop() {
        try? input.fileHandleForWriting.close()
        let deadline = ContinuousClock.now + .seconds(5)
        while process.isRunning && ContinuousClock.now < deadline { usleep(10_000) }
        if process.isRunning { process.terminate() }
        process.waitUntilExit()
    }
}
#endif
