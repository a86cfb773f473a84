// A child process started inside `offPool` must get a clean signal mask: libdispatch's worker
// threads block most asynchronous signals (SIGTERM, SIGINT, SIGABRT, SIGHUP…), and a child
// started with `posix_spawn` or `fork` inherits the mask of the thread that started it, so a
// server started off the pool ignored `Process.terminate()` (HTTPSLab's `stop()` used SIGKILL
// for that reason). Checked both ways: the child's blocked set as the kernel reports it
// (`SigBlk` in /proc/PID/status), and a SIGTERM that must end it.
import Foundation
import Glibc
import LariatTestSupport
import Testing

extension EventLoopTests {
    @Suite struct OffPoolSignalMaskTests {
        /// What became of the child.
        struct Outcome: Sendable {
            /// The child's `SigBlk` line (hexadecimal mask), read before the signal.
            var blocked: String?
            /// Whether SIGTERM ended it within the bound (else it was killed with SIGKILL).
            var endedBySIGTERM: Bool
            /// How it ended.
            var reason: Process.TerminationReason
            var status: Int32
        }

        /// The `SigBlk` mask of process `pid`, from /proc.
        static func blockedMask(of pid: pid_t) -> String? {
            guard let text = try? String(contentsOfFile: "/proc/\(pid)/status", encoding: .utf8) else { return nil }
            for line in text.split(separator: "\n") where line.hasPrefix("SigBlk:") {
                return line.dropFirst("SigBlk:".count).trimmingCharacters(in: .whitespaces)
            }
            return nil
        }

        @Test func childStartedOffPoolDiesOnSIGTERM() async throws {
            let outcome = try await offPool { () throws -> Outcome in
                let process = Process()
                process.executableURL = URL(fileURLWithPath: "/bin/sleep")
                process.arguments = ["30"]
                process.standardInput = FileHandle.nullDevice
                process.standardOutput = FileHandle.nullDevice
                process.standardError = FileHandle.nullDevice
                try process.run()
                let pid = process.processIdentifier
                // The mask is set by the time the child runs `sleep` (exec keeps it); wait for
                // the exec so /proc shows the child's own state, not the parent's copy mid-spawn.
                var blocked: String?
                for _ in 0..<200 {
                    if let comm = try? String(contentsOfFile: "/proc/\(pid)/comm", encoding: .utf8), comm.hasPrefix("sleep") {
                        blocked = Self.blockedMask(of: pid)
                        break
                    }
                    usleep(10_000)
                }
                kill(pid, SIGTERM)
                // Bounded: at most 5 s for SIGTERM to work, then SIGKILL so the test never hangs.
                var endedBySIGTERM = false
                for _ in 0..<500 {
                    if !process.isRunning { endedBySIGTERM = true; break }
                    usleep(10_000)
                }
                if !endedBySIGTERM { kill(pid, SIGKILL) }
                process.waitUntilExit()
                return Outcome(blocked: blocked, endedBySIGTERM: endedBySIGTERM,
                               reason: process.terminationReason, status: process.terminationStatus)
            }
            #expect(outcome.blocked == "0000000000000000", "the child started with blocked signals: \(outcome.blocked ?? "unknown")")
            #expect(outcome.endedBySIGTERM, "SIGTERM did not end the child within 5 s")
            #expect(outcome.reason == Process.TerminationReason.uncaughtSignal && outcome.status == SIGTERM,
                    "ended by \(outcome.reason == Process.TerminationReason.uncaughtSignal ? "signal" : "exit") \(outcome.status)")
        }
    }
}
