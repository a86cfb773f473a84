// `fetch ws://…` and `wss://…`: Lariat's own (curl 7.88 has no WebSocket; curl 8.x receives only).
//
// The handshake is the planned request's (headers, -H, -A, TLS options, proxy: the session's).
// Each received message's payload is written to standard output as it arrives, text and binary
// alike, with nothing added (curl 8.x's output). Each line read from standard input (without its
// newline) is sent as a text message; the end of standard input sends nothing, and the transfer
// lasts until the server closes (or --max-time). Exit status: 0 after a close handshake
// (whatever its code), 23 when standard output fails, otherwise curl's for the error (7 refused,
// 28 timeout, 35/60 TLS, 56 connection lost, 8 a refused upgrade or a protocol error).

import Client
import Dispatch
import FoundationEssentials
import Synchronization
#if FullFoundation
import Foundation
#endif
#if canImport(Glibc)
import Glibc
#endif

/// One WebSocket transfer of fetch; see the file comment.
struct WebSocketTransfer {
    let options: FetchOptions
    let request: PlannedRequest

    /// Whether `url` (already normalized) is a WebSocket URL.
    static func handles(_ url: String) -> Bool {
        let lower = url.lowercased()
        return lower.hasPrefix("ws://") || lower.hasPrefix("wss://")
    }

    /// Runs the transfer and returns curl's exit status.
    func run(_ session: Session) async -> Int32 {
        guard let url = URL(string: request.url) else { return 3 }
        var urlRequest = URLRequest(url: url)
        for field in request.headers { urlRequest.addValue(field.value, forHTTPHeaderField: field.name) }
        // A message may be as large as a body curl would write; --max-filesize bounds it when given.
        let limit = options.maxFileSize ?? 64 << 20
        let webSocket = session.webSocketRequest(performing: urlRequest, configuration: .maximumMessageSize(limit))
        let queue = DispatchQueue(label: "org.lariat.fetch.websocket")
        let writeFailed = Mutex(false)
        let timedOut = Mutex(false)
        // --max-time bounds the whole transfer, as curl's: the connection is cancelled then.
        if let maxTime = options.maxTime {
            DispatchQueue.global().asyncAfter(deadline: .now() + maxTime) {
                timedOut.withLock { $0 = true }
                webSocket.cancel()
            }
        }
        let completion = await withCheckedContinuation { (done: CheckedContinuation<WebSocketRequest.Completion, Never>) in
            webSocket.streamMessageEvents(on: queue) { event in
                switch event.kind {
                case .connected:
                    Self.sendStandardInput(to: webSocket)
                case .receivedMessage(let message):
                    let bytes: Data = switch message {
                    case .string(let text): Data(text.utf8)
                    case .data(let data): data
                    }
                    if !writeAll(1, bytes) {
                        writeFailed.withLock { $0 = true }
                        webSocket.cancel()
                    }
                case .completed(let completion):
                    done.resume(returning: completion)
                default:
                    break
                }
            }
        }
        if writeFailed.withLock({ $0 }) {
            if options.showsErrors { printError("fetch: (23) Failure writing output to destination") }
            return 23
        }
        if timedOut.withLock({ $0 }) {
            let milliseconds = Int((options.maxTime ?? 0) * 1000)
            if options.showsErrors { printError("fetch: (28) Operation timed out after \(milliseconds) milliseconds") }
            return 28
        }
        guard let error = completion.error else { return 0 }
        let status = TransferErrors.exitStatus(for: error, certificateStatusRequired: false)
        if options.showsErrors {
            printError("fetch: (\(status)) \(TransferErrors.message(for: error, status: status, url: request.url))")
        }
        return status
    }

    /// Reads standard input on a queue of its own (one blocked thread for the transfer) and
    /// sends each line as a text message.
    private static func sendStandardInput(to webSocket: WebSocketRequest) {
        DispatchQueue(label: "org.lariat.fetch.websocket-stdin").async {
            while let line = readLine(strippingNewline: true) {
                webSocket.send(.string(line), queue: .global()) { _ in }
            }
        }
    }
}
