// The shared failure report for the Client and TLS targets, which do not link Wire's harness.
//
// A violated oracle traps: libFuzzer saves the input and `run.sh` reports the finding.

internal import CLibFuzzer
internal import Glibc

/// Runs libFuzzer with the process's arguments and exits with its status.
public enum ClientFuzzEntry {
    /// A fuzz callback: called with each input; returns 0.
    public typealias Callback = @convention(c) (UnsafePointer<UInt8>?, Int) -> CInt

    /// Hands control to libFuzzer's driver; never returns.
    public static func run(_ callback: Callback) -> Never {
        var argc = CommandLine.argc
        var argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>? = CommandLine.unsafeArgv
        exit(LLVMFuzzerRunDriver(&argc, &argv, callback))
    }
}

/// The input as an array (empty when `data` is `nil`).
public func inputBytes(_ data: UnsafePointer<UInt8>?, _ count: Int) -> [UInt8] {
    guard let data, count > 0 else { return [] }
    return Array(UnsafeBufferPointer(start: data, count: count))
}

/// The input cut at each 0xFF byte (a byte that never occurs in UTF-8), at most `limit` pieces.
public func fields(_ bytes: [UInt8], limit: Int) -> [[UInt8]] {
    Array(bytes.split(separator: 0xFF, maxSplits: limit - 1, omittingEmptySubsequences: false).map(Array.init))
}

/// Traps with `message` unless `condition` holds.
public func require(_ condition: @autoclosure () -> Bool, _ message: @autoclosure () -> String, line: UInt = #line) {
    if !condition() { fatalError("oracle violated: \(message())", line: line) }
}
