// Issue 18's regression matrix: a server certificate carrying each GeneralName kind (SANKindsLab)
// behind `openssl s_server`, reached through Session and through the `fetch` binary, trusted,
// untrusted, pinned to another key and pinned to its own key. Before the fix, reading an
// otherName, directoryName, registeredID or ediPartyName payload as an ASN1_STRING took a
// pointer's low 32 bits as a length and crashed about half of the processes (SIGSEGV in memcpy),
// whatever the trust outcome; a pointer into libcrypto's static OID table (UPN, RID) is fixed for
// a process, so only separate processes (fetch) vary it through ASLR.
//
// Measured on the code before the fix (914da83~1), 20 fetch processes per kind: UPN, INTEGER and
// SEQUENCE otherNames and ediPartyName crashed in 8-14 of 20, a known-OID registeredID in 5 of 20,
// directoryName and the string kinds never. CI runs 5 processes per (kind, mode) for the first
// four, 10 for registeredID and 1 for the others (SANKindsLab's ciRunsPerMode). The Session half
// runs in the test process, where ASLR is fixed: it crashed no run of the old code we tried, so
// it checks outcomes, not the crash. `LARIAT_SAN_MATRIX_COUNT=200`
// (scripts/san-kinds-matrix.sh) runs 200 connections per (kind, mode) through both.
#if FullFoundation
import Foundation
import Testing
import TLS
import LariatTestSupport
@testable import Client
@testable import Transport

/// `fetch` next to the running test bundle, if it was built.
private let fetchExecutable: String? = fetchExecutablePath

/// Connections per (kind, mode) asked for by hand; nil in CI.
private let matrixCount: Int? = ProcessInfo.processInfo.environment["LARIAT_SAN_MATRIX_COUNT"].flatMap(Int.init)

/// The kinds to run, by certificate file name (`LARIAT_SAN_MATRIX_KINDS=san-email,san-uri`), asked
/// for by hand to finish a long run; nil runs every kind.
private let matrixKinds: Set<String>? = ProcessInfo.processInfo.environment["LARIAT_SAN_MATRIX_KINDS"]
    .map { Set($0.split(separator: ",").map(String.init)) }

extension ClientIntegrationTests {
    @Suite("subjectAltName kinds: every GeneralName kind through Session and fetch (issue 18)")
    struct SANKindsHandshakeTests {
        /// How the client judges the server.
        enum Mode: String, CaseIterable, Sendable {
            /// The lab root as anchor: success.
            case trusted
            /// An unrelated root as the only anchor: a typed trust error (curl exit 60).
            case untrusted
            /// Trusted, but pinned to another server's key: a typed pinning failure (curl exit 90).
            case pinnedToOtherKey
            /// Trusted and pinned to the server's own key: success.
            case pinnedToOwnKey
        }

        static func count(_ kind: HTTPSLab.SANKind) -> Int {
            if let matrixKinds, !matrixKinds.contains(kind.file) { return 0 }
            return matrixCount ?? kind.ciRunsPerMode
        }

        /// `openssl s_server` with the kind's certificate. No session cache and no tickets, so
        /// every connection is a full handshake that evaluates the certificate again.
        static func server(_ lab: HTTPSLab, _ kind: HTTPSLab.SANKind) throws -> HTTPSServer {
            try HTTPSServer(lab: lab, certificate: kind.file, arguments: ["-no_cache", "-no_ticket", "-naccept", "1000000"])
        }

        // MARK: Session

        @Test("Session", arguments: HTTPSLab.sanKinds)
        func session(_ kind: HTTPSLab.SANKind) async throws {
            guard Self.count(kind) > 0 else { return }
            let lab = try HTTPSLab.sanKindsLab.get()
            let server = try Self.server(lab, kind)
            defer { server.stop() }
            let url = "https://\(HTTPSLab.hostName):\(server.port)/"
            for mode in Mode.allCases {
                let (session, expected) = try Self.session(lab, kind, mode)
                for _ in 0..<Self.count(kind) {
                    let response = await session.request(url).serializingData().response
                    HTTPSLabTests.check(response.result, statusCode: response.response?.statusCode, expected: expected)
                }
            }
        }

        /// A session for `mode` and the outcome every request through it must have.
        static func session(_ lab: HTTPSLab, _ kind: HTTPSLab.SANKind, _ mode: Mode) throws -> (Session, HTTPSLabTests.Expected) {
            var tls = TLSConfiguration()
            tls.trustRoots = .file(lab.path(mode == .untrusted ? "rogue.pem" : "ca.pem"))
            let resolver = try HostResolver(overrides: [HTTPSLab.hostName: ["127.0.0.1"]])
            let manager: ServerTrustManager?
            let expected: HTTPSLabTests.Expected
            switch mode {
            case .trusted:
                (manager, expected) = (nil, .success)
            case .untrusted:
                (manager, expected) = (nil, .certificate(.serverCertificateHasUnknownRoot, .incompleteChain))
            case .pinnedToOtherKey:
                let keys = try SecKey.publicKeys(inFile: lab.path("server.pem"))
                manager = ServerTrustManager(evaluators: [HTTPSLab.hostName: PublicKeysTrustEvaluator(keys: keys)])
                expected = .trust("publicKeyPinningFailed")
            case .pinnedToOwnKey:
                let keys = try SecKey.publicKeys(inFile: lab.path(kind.file + ".pem"))
                manager = ServerTrustManager(evaluators: [HTTPSLab.hostName: PublicKeysTrustEvaluator(keys: keys)])
                expected = .success
            }
            return (Session(serverTrustManager: manager, tlsConfiguration: tls, resolver: resolver), expected)
        }

        // MARK: fetch, one process per connection

        @Test("fetch processes", .enabled(if: fetchExecutable != nil, "the fetch binary is not built next to the tests"),
              arguments: HTTPSLab.sanKinds)
        func fetch(_ kind: HTTPSLab.SANKind) async throws {
            guard Self.count(kind) > 0 else { return }
            let lab = try HTTPSLab.sanKindsLab.get()
            let server = try Self.server(lab, kind)
            defer { server.stop() }
            let url = "https://\(HTTPSLab.hostName):\(server.port)/"
            let resolve = ["--resolve", "\(HTTPSLab.hostName):\(server.port):127.0.0.1"]
            let trusted = resolve + ["--cacert", lab.path("ca.pem")]
            let rows: [(Mode, [String], Int32)] = [
                (.trusted, trusted, 0),
                (.untrusted, resolve, 60),
                (.pinnedToOtherKey, trusted + ["--pinnedpubkey", lab.path("server.pub.pem")], 90),
                (.pinnedToOwnKey, trusted + ["--pinnedpubkey", lab.path("sankinds.pub.pem")], 0),
            ]
            for (mode, arguments, status) in rows {
                // Off the cooperative pool: each kind runs fetch a few (CI) to 200 (by hand) times
                // and waits for each; on the pool that held one of CI's two threads for 90 s.
                let count = Self.count(kind)
                let executable = try #require(fetchExecutable)
                let outcomes = try await offPool { () throws -> [String: Int] in
                    var outcomes: [String: Int] = [:]
                    for _ in 0..<count {
                        let outcome = try Self.runFetch(executable, ["--max-time", "10", "--no-progress-meter", "-o", "/dev/null"] + arguments + [url])
                        outcomes[outcome, default: 0] += 1
                    }
                    return outcomes
                }
                #expect(outcomes == ["exit \(status)": count], "\(kind.name), \(mode.rawValue)")
            }
        }

        /// Runs fetch; `exit N` or `signal N` (a crash).
        static func runFetch(_ executable: String, _ arguments: [String]) throws -> String {
            let process = Process()
            process.executableURL = URL(fileURLWithPath: executable)
            process.arguments = arguments
            // No backtracer: a crash (the old code) ends the process at once instead of symbolicating.
            var environment = ProcessInfo.processInfo.environment
            environment["SWIFT_BACKTRACE"] = "enable=no"
            process.environment = environment
            process.standardOutput = FileHandle.nullDevice
            process.standardError = FileHandle.nullDevice
            try process.run()
            process.waitUntilExit()
            return process.terminationReason == .uncaughtSignal ? "signal \(process.terminationStatus)" : "exit \(process.terminationStatus)"
        }
    }
}
#endif
