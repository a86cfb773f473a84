// One line on standard error when fetch dies of a fatal signal, then the signal's default action
// (so the status is still the signal's: 139 for SIGSEGV in a shell, non-zero for a healthcheck).
//
// Without it a crash prints nothing at all unless the Swift runtime's backtracer runs, and in a
// `FROM scratch` image it cannot: it needs the swift-backtrace program (SWIFT_BACKTRACE). A
// `fatalError` or a failed precondition still prints the runtime's "Fatal error: ..." line first;
// this adds which signal ended the process. When SWIFT_BACKTRACE has installed the runtime's own
// handlers, they are left alone.

#if canImport(Glibc)
import Glibc
#endif

enum CrashMessage {
    /// The signals a crash ends in: bad memory access, a trap (Swift's `fatalError`, overflow and
    /// bounds checks), arithmetic, abort.
    static let signals: [Int32] = [SIGSEGV, SIGBUS, SIGILL, SIGTRAP, SIGFPE, SIGABRT]

    /// Installs the handler for each of ``signals`` that still has its default action.
    static func install() {
        for signal in signals {
            var current = sigaction()
            guard sigaction(signal, nil, &current) == 0, current.__sigaction_handler.sa_handler == nil else { continue }
            var action = sigaction()
            action.__sigaction_handler.sa_handler = report
            // Back to the default action on entry: the re-raised signal (or the fault, repeated
            // when the handler returns) then ends the process.
            action.sa_flags = Int32(truncatingIfNeeded: SA_RESETHAND)  // 0x80000000: Int32's sign bit
            sigemptyset(&action.sa_mask)
            _ = sigaction(signal, &action, nil)
        }
    }

    /// Writes the line and re-raises the signal. Async-signal-safe: static text and `write`.
    private static let report: @convention(c) (Int32) -> Void = { signal in
        let line: StaticString = switch signal {
        case SIGSEGV: "fetch: crashed: SIGSEGV (invalid memory access); please report this\n"
        case SIGBUS: "fetch: crashed: SIGBUS (invalid memory access); please report this\n"
        case SIGILL: "fetch: crashed: a runtime check failed (SIGILL); please report this\n"
        case SIGTRAP: "fetch: crashed: a runtime check failed (SIGTRAP); please report this\n"
        case SIGFPE: "fetch: crashed: SIGFPE (arithmetic error); please report this\n"
        default: "fetch: crashed: SIGABRT (aborted); please report this\n"
        }
        _ = write(2, line.utf8Start, line.utf8CodeUnitCount)
        _ = raise(signal)
    }
}
