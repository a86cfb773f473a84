// The steps a ScriptedServer connection performs, in order.

extension ScriptedServer {
    /// One action of a scripted connection. Steps run in order; each `expect…` waits at most the
    /// server's `stepTimeout` and records a failure (then ends the connection) if it times out,
    /// sees end of stream, or mismatches.
    public enum Step: Sendable, Hashable, CustomStringConvertible {
        /// Read until one full request has arrived (head, then its Content-Length or chunked body)
        /// and record its raw bytes (see ``ScriptedServer/requests(onConnection:)``).
        case expectRequest
        /// Read exactly these bytes next; a mismatch is recorded as a failure.
        case expectBytes([UInt8])
        /// Read until at least this many received bytes are waiting, whatever they are, and keep
        /// them for the next `expect…` step. With ``sleep(_:)`` between steps it makes a slow
        /// reader: the client's writes block while the server pauses.
        case receive(atLeast: Int)
        /// Send these bytes.
        case send([UInt8])
        /// Pause (stopping the server cuts it short).
        case sleep(Duration)
        /// Graceful close: FIN now, then wait up to 1 s for the client to close too before closing
        /// the fd (so unread client bytes cannot turn the close into a reset). Ends the script.
        case close
        /// Abortive close: `SO_LINGER` 0, then close, so the client gets RST. Ends the script.
        case reset
        /// `shutdown(SHUT_WR)`: FIN, while still reading.
        case shutdownWrite
        /// Read (recording bytes) until the client closes; a timeout is a failure.
        case waitForClientClose
        /// Answer every request the client sends on the connection with these bytes, each after
        /// `delay`, until the client closes (not a failure); waiting longer than the step timeout
        /// for the next request is one. For a pool that may put any number of requests on one
        /// keep-alive connection (it reuses the most recently released first). Ends the script.
        case respondToEachRequest([UInt8], after: Duration)

        /// Sends the UTF-8 bytes of `text`.
        ///
        /// - Parameter text: What to send, for example a canned HTTP response.
        /// - Returns: A ``send(_:)-swift.enum.case`` step.
        public static func send(_ text: String) -> Step {
            .send(Array(text.utf8))
        }

        /// Answers every request with the UTF-8 bytes of `text`, each after `delay`, until the
        /// client closes.
        ///
        /// - Parameters:
        ///   - text: The response, for example a canned HTTP response.
        ///   - delay: How long each request waits for it.
        /// - Returns: A ``respondToEachRequest(_:after:)-swift.enum.case`` step.
        public static func respondToEachRequest(_ text: String, after delay: Duration = .zero) -> Step {
            .respondToEachRequest(Array(text.utf8), after: delay)
        }

        /// Expects the UTF-8 bytes of `text`.
        ///
        /// - Parameter text: The exact bytes expected next.
        /// - Returns: An ``expectBytes(_:)`` step.
        public static func expect(_ text: String) -> Step {
            .expectBytes(Array(text.utf8))
        }

        /// A short name for failure messages.
        public var description: String {
            switch self {
            case .expectRequest: return "expectRequest"
            case .expectBytes(let bytes): return "expectBytes(\(bytes.count) bytes)"
            case .receive(let count): return "receive(atLeast: \(count))"
            case .send(let bytes): return "send(\(bytes.count) bytes)"
            case .sleep(let duration): return "sleep(\(duration))"
            case .close: return "close"
            case .reset: return "reset"
            case .shutdownWrite: return "shutdownWrite"
            case .waitForClientClose: return "waitForClientClose"
            case .respondToEachRequest(let bytes, let delay): return "respondToEachRequest(\(bytes.count) bytes, after: \(delay))"
            }
        }
    }

    /// Which script each accepted connection runs.
    public enum Scripts: Sendable, Hashable {
        /// Connection *n* runs script *n*; connections beyond the list are closed at once and
        /// recorded as failures.
        case inOrder([[Step]])
        /// Every connection runs the same script.
        case everyConnection([Step])

        func script(forConnection index: Int) -> [Step]? {
            switch self {
            case .inOrder(let scripts): return index < scripts.count ? scripts[index] : nil
            case .everyConnection(let script): return script
            }
        }
    }
}
