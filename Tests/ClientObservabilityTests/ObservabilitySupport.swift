// Shared by the ClientObservability suites: httpbin's address, a swift-log handler that keeps
// what it is given, and a bounded wait for events that arrive on a monitor's queue.
#if FullFoundation
import Foundation
#else
import FoundationEssentials
#endif
import Logging
import Synchronization

/// The httpbin base URL from the environment (scripts/httpbin.sh), or nil: the suites skip.
let observabilityHTTPBin: String? = ProcessInfo.processInfo.environment["LARIAT_HTTPBIN"].flatMap { $0.isEmpty ? nil : $0 }

/// A log line as the handler received it.
struct LoggedLine: Sendable {
    var level: Logger.Level
    var message: String
    var metadata: Logger.Metadata
}

/// A swift-log handler that records every line it is given (after Logger's level check).
struct RecordingLogHandler: LogHandler {
    let lines: RecordedLines
    var logLevel: Logger.Level
    var metadata: Logger.Metadata = [:]
    var metadataProvider: Logger.MetadataProvider?

    func log(event: LogEvent) {
        lines.append(LoggedLine(level: event.level, message: event.message.description, metadata: event.metadata ?? [:]))
    }

    subscript(metadataKey key: String) -> Logger.Metadata.Value? {
        get { metadata[key] }
        set { metadata[key] = newValue }
    }
}

/// The lines a ``RecordingLogHandler`` received.
final class RecordedLines: Sendable {
    private let storage = Mutex<[LoggedLine]>([])
    func append(_ line: LoggedLine) { storage.withLock { $0.append(line) } }
    var all: [LoggedLine] { storage.withLock { $0 } }
}

/// Waits (up to 5 s, polling every 5 ms) until `condition` holds; whether it did.
func eventually(_ condition: () -> Bool) async -> Bool {
    for _ in 0..<1000 {
        if condition() { return true }
        try? await Task.sleep(for: .milliseconds(5))
    }
    return condition()
}
