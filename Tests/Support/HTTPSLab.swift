// A certificate lab minted at test time with the openssl CLI (nothing committed, nothing that
// expires in the repository), and `openssl s_server -www` on loopback as the HTTPS server.
#if FullFoundation
package import Foundation
import Synchronization
#if canImport(Glibc)
import Glibc
#endif

/// The lab's directory, for the exit handler to remove (the shared lab is never deinitialized).
private let httpsLabDirectoryToRemove = Mutex<String?>(nil)

/// Keys and certificates for the HTTPS tests, in a temporary directory.
package struct HTTPSLab: Sendable {
    package struct Failure: Error, CustomStringConvertible {
        package var description: String
        package init(description: String) { self.description = description }
    }

    package let directory: String
    package func path(_ name: String) -> String { directory + "/" + name }

    /// Minted once per test process: `ca` (test root), `server` (by `ca`, SAN IP:127.0.0.1 only),
    /// `rogue` (an unrelated self-signed CA, for mismatching pins), and the certificate cases of
    /// HTTPSLab+Cases.swift.
    package static let shared: Result<HTTPSLab, Failure> = {
        // A fresh directory per process, removed when the process exits: a name made from the PID
        // could meet a directory (and its CA database) that an earlier process left behind.
        let directory = NSTemporaryDirectory() + "lariat-https-\(UUID().uuidString)"
        httpsLabDirectoryToRemove.withLock { $0 = directory }
        atexit {
            if let path = httpsLabDirectoryToRemove.withLock({ $0 }) { try? FileManager.default.removeItem(atPath: path) }
        }
        do {
            try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
            let lab = HTTPSLab(directory: directory)
            try lab.mint()
            try lab.mintCases()
            return .success(lab)
        } catch let error as Failure {
            return .failure(error)
        } catch {
            return .failure(Failure(description: "\(error)"))
        }
    }()

    private func mint() throws {
        for name in ["ca", "server", "rogue"] {
            try openssl(["genpkey", "-algorithm", "EC", "-pkeyopt", "ec_paramgen_curve:P-256", "-out", path(name + ".key")])
        }
        let caExtensions = ["-addext", "basicConstraints=critical,CA:TRUE", "-addext", "keyUsage=critical,keyCertSign,cRLSign"]
        try openssl(["req", "-x509", "-new", "-key", path("ca.key"), "-subj", "/CN=Lariat Test Root", "-days", "2", "-out", path("ca.pem")] + caExtensions)
        try openssl(["req", "-x509", "-new", "-key", path("rogue.key"), "-subj", "/CN=Rogue Root", "-days", "2", "-out", path("rogue.pem")] + caExtensions)
        try openssl(["req", "-new", "-key", path("server.key"), "-subj", "/CN=127.0.0.1", "-out", path("server.csr")])
        try "subjectAltName=IP:127.0.0.1\nextendedKeyUsage=serverAuth\nbasicConstraints=CA:FALSE\n"
            .write(toFile: path("server.ext"), atomically: true, encoding: .utf8)
        try openssl([
            "x509", "-req", "-in", path("server.csr"), "-CA", path("ca.pem"), "-CAkey", path("ca.key"), "-CAcreateserial",
            "-days", "2", "-extfile", path("server.ext"), "-out", path("server.pem"),
        ])
        try openssl(["pkey", "-in", path("server.key"), "-pubout", "-out", path("server.pub.pem")])
    }

    @discardableResult
    package func openssl(_ arguments: [String]) throws -> String {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/openssl")
        process.arguments = arguments
        let errors = Pipe()
        process.standardOutput = FileHandle.nullDevice
        process.standardError = errors
        try withCleanSignalMask { try process.run() }
        let text = String(decoding: errors.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        guard process.terminationStatus == 0 else {
            throw Failure(description: "openssl \(arguments.joined(separator: " ")): \(text)")
        }
        return text
    }
}

/// `openssl s_server -www` on 127.0.0.1 with the lab's server certificate; stopped (by PID) by ``stop()``.
package final class HTTPSServer: @unchecked Sendable {
    package let process = Process()
    package let port: Int
    private let output = Pipe()

    /// Starts a server on a free port and waits until it accepts connections.
    ///
    /// - Parameters:
    ///   - lab: where the files are.
    ///   - certificate: the lab name of the server certificate (`NAME.pem`, key `NAME.key`); `server` by default.
    ///   - chain: a lab file of intermediates to send after the leaf (`-cert_chain`); none by default.
    ///   - arguments: further `s_server` arguments (`-Verify 1`, `-tls1_2`, `-cipher …`); none by default.
    package init(lab: HTTPSLab, certificate: String = "server", chain: String? = nil, arguments: [String] = []) throws {
        port = try HTTPSServer.freePort()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/openssl")
        process.arguments = [
            "s_server", "-www", "-accept", "127.0.0.1:\(port)",
            "-cert", lab.path(certificate + ".pem"), "-key", lab.path(certificate + ".key"),
            "-naccept", "100", "-quiet",
        ] + (chain.map { ["-cert_chain", lab.path($0)] } ?? []) + arguments
        process.standardOutput = output
        process.standardError = output
        try withCleanSignalMask { try process.run() }
        // Ready once a TCP connect succeeds (s_server prints nothing with -quiet). The wait is long
        // for loaded sanitizer runs; a server that exits ends it at once.
        let deadline = Date().addingTimeInterval(60)
        while !HTTPSServer.canConnect(port: port) {
            guard Date() < deadline, process.isRunning else {
                stop()
                throw HTTPSLab.Failure(description: "s_server did not start on port \(port)")
            }
            usleep(20_000)
        }
    }

    /// Terminates the server process this object started (SIGTERM: it was started with no
    /// signal blocked, whichever thread started it) and waits for it.
    package func stop() {
        if process.isRunning { process.terminate() }
        process.waitUntilExit()
    }

    /// A loopback port free right now (bound to port 0, then released); shared by the TLS and
    /// WebSocket servers the tests start.
    package static func freePort() throws -> Int {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        defer { close(fd) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        address.sin_port = 0
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                bind(fd, $0, length) == 0 && getsockname(fd, $0, &length) == 0
            }
        }
        guard bound else { throw HTTPSLab.Failure(description: "no free port") }
        return Int(UInt16(bigEndian: address.sin_port))
    }

    /// Whether something accepts connections on the loopback `port`.
    package static func canConnect(port: Int) -> Bool {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        defer { close(fd) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        address.sin_port = UInt16(port).bigEndian
        return withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) == 0 }
        }
    }
}
#endif
