// Starting libFuzzer from a Swift executable, and failing loudly when an oracle is violated.
//
// A violated oracle prints what it saw and traps: libFuzzer treats the trap as a crash, saves the
// input to the artifact directory and exits nonzero, which is what `run.sh` reports.

internal import CLibFuzzer
internal import Glibc

/// Runs libFuzzer with the process's arguments and exits with its status.
public enum FuzzEntry {
    /// A fuzz callback: called with each input (`data` may be `nil` when `count` is 0); returns 0.
    public typealias Callback = @convention(c) (UnsafePointer<UInt8>?, Int) -> CInt

    /// Hands control to libFuzzer's driver, which parses the command line (`-runs`, corpus
    /// directories, …) and calls `callback` once per input.
    /// - Parameter callback: a closure that captures nothing, so it converts to a C function pointer.
    /// - Returns: never; the process exits with libFuzzer's status.
    public static func run(_ callback: Callback) -> Never {
        var argc = CommandLine.argc
        var argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>? = CommandLine.unsafeArgv
        exit(LLVMFuzzerRunDriver(&argc, &argv, callback))
    }
}

/// The bytes libFuzzer passed, as a buffer (empty when `data` is `nil`).
public func fuzzBytes(_ data: UnsafePointer<UInt8>?, _ count: Int) -> UnsafeRawBufferPointer {
    guard let data, count > 0 else { return UnsafeRawBufferPointer(start: nil, count: 0) }
    return UnsafeRawBufferPointer(start: data, count: count)
}

/// Traps with `message` unless `condition` holds: the fuzzer's way to report a broken oracle.
@inline(__always)
func require(
    _ condition: @autoclosure () -> Bool, _ message: @autoclosure () -> String,
    file: StaticString = #fileID, line: UInt = #line
) {
    if !condition() { violation(message(), file: file, line: line) }
}

/// Reports a broken oracle and traps.
func violation(_ message: String, file: StaticString = #fileID, line: UInt = #line) -> Never {
    fatalError("oracle violated: \(message)", file: file, line: line)
}
