// fetch's last words on a fatal signal (Sources/fetch/CrashMessage.swift): the built binary, in
// the middle of a transfer, sent a crash signal. It must say so in one line on standard error
// and still die of that signal (so a shell sees 128 + N and a healthcheck a failure).
#if FullFoundation
import Foundation
import Testing
import LariatTestSupport
#if canImport(Glibc)
import Glibc
#endif

/// Whether this build runs under a sanitizer (the fetch binary beside it is the same build). A
/// sanitizer's runtime installs its own handlers for SIGSEGV and SIGBUS and reports a crash
/// itself; fetch leaves installed handlers alone by design, so the plain build is where its line
/// is checked.
private let builtWithSanitizer = (["__asan_init", "__tsan_init"] as [String]).contains { dlsym(nil, $0) != nil }

@Suite(.disabled(if: builtWithSanitizer, "a sanitizer's runtime owns the fatal signals"))
struct FetchCrashMessageTests {
    /// How a fetch run that was sent `signal` ended.
    struct Ending: Sendable {
        var reason: Process.TerminationReason
        var status: Int32
        var errors: String
    }

    /// SIGABRT too: `offPool` starts the child with no signal blocked (it inherited the
    /// Dispatch worker's mask, which blocks SIGABRT, until OffPool.swift cleared it).
    @Test("a fatal signal mid-transfer: one line naming it on stderr, then death by that signal",
          arguments: [SIGSEGV, SIGILL, SIGBUS, SIGABRT])
    func fatalSignal(_ signal: Int32) async throws {
        // A server that takes the request and never answers: fetch is waiting in its transfer.
        let server = try ScriptedServer(script: [.expectRequest, .sleep(.seconds(10))])
        defer { server.stop() }
        let ending = try await offPool { () throws -> Ending in
            let process = Process()
            process.executableURL = URL(fileURLWithPath: FetchOptionParityTests.fetchPath)
            process.arguments = ["-sS", "--max-time", "20", "http://127.0.0.1:\(server.port)/"]
            // As in a scratch image: no swift-backtrace, so the runtime installs no handlers.
            var environment = ProcessInfo.processInfo.environment
            environment["SWIFT_BACKTRACE"] = "enable=no"
            process.environment = environment
            let errors = Pipe()
            process.standardError = errors
            process.standardOutput = FileHandle.nullDevice
            try process.run()
            _ = server.waitForConnections(1)
            kill(process.processIdentifier, signal)
            let text = errors.fileHandleForReading.readDataToEndOfFile()
            process.waitUntilExit()
            return Ending(reason: process.terminationReason, status: process.terminationStatus, errors: String(decoding: text, as: UTF8.self))
        }
        #expect(ending.reason == .uncaughtSignal && ending.status == signal, "ended with \(ending.reason) \(ending.status)")
        #expect(ending.errors.hasPrefix("fetch: crashed: "), "stderr: \(ending.errors)")
        #expect(ending.errors.filter { $0 == "\n" }.count == 1, "one line: \(ending.errors)")
    }
}
#endif
