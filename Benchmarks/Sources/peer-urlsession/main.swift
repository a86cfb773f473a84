// peer-urlsession: the benchmark contract (README.md) on Foundation's URLSession
// (swift-corelibs-foundation's FoundationNetworking, which runs on libcurl).
//
// Each operation uses the async URLSession API as documented: `data(for:)`,
// `download(for:)` followed by a move to the destination, and `upload(for:fromFile:)`; `stream`
// uses a data task whose `URLSessionDataDelegate` counts each `didReceive` chunk (corelibs has no
// `bytes(for:)`).
import BenchSupport
import Foundation
import Synchronization
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// Counts a data task's body chunks and resumes the waiting caller when the task completes.
final class ChunkCounter: NSObject, URLSessionDataDelegate, Sendable {
    private struct State {
        var bytes = 0
        var continuation: CheckedContinuation<Fetched, any Error>?
    }

    private let state = Mutex(State())

    /// Sets the continuation resumed by `didCompleteWithError`; call before resuming the task.
    func wait(_ continuation: CheckedContinuation<Fetched, any Error>) {
        state.withLock { $0.continuation = continuation }
    }

    func urlSession(_ session: URLSession, dataTask: URLSessionDataTask, didReceive data: Data) {
        state.withLock { $0.bytes += data.count }
    }

    func urlSession(_ session: URLSession, task: URLSessionTask, didCompleteWithError error: (any Error)?) {
        let (continuation, bytes) = state.withLock { state in
            defer { state.continuation = nil }
            return (state.continuation, state.bytes)
        }
        if let error {
            continuation?.resume(throwing: error)
        } else {
            let status = (task.response as? HTTPURLResponse)?.statusCode ?? 0
            continuation?.resume(returning: Fetched(status: status, bodyBytes: bytes))
        }
    }
}

struct URLSessionPeer: PeerClient {
    let session: URLSession

    init(options: BenchOptions) throws {
        if options.url.hasPrefix("https://") {
            // corelibs-foundation has no API to trust another CA on Linux: server-trust challenges
            // are not delivered, and libcurl is pointed at the system bundle
            // (/etc/ssl/certs/ca-certificates.crt), which SSL_CERT_FILE does not override. run.py
            // therefore starts this peer in a private mount namespace where that path shows the
            // --cacert file, and says so with LARIAT_SYSTEM_CA_IS_CACERT=1.
            guard options.cacert == nil || Self.environment("LARIAT_SYSTEM_CA_IS_CACERT") == "1" else {
                throw Unsupported(
                    "--cacert: URLSession on Linux trusts only the system CA bundle; run it where that "
                        + "bundle is the --cacert file (run.py does, as root) and set LARIAT_SYSTEM_CA_IS_CACERT=1")
            }
        }
        let configuration = URLSessionConfiguration.default
        configuration.httpMaximumConnectionsPerHost = options.connections
        // No cache: every request must reach the server, as with every other peer.
        configuration.urlCache = nil
        configuration.requestCachePolicy = .reloadIgnoringLocalCacheData
        configuration.timeoutIntervalForRequest = 300
        session = URLSession(configuration: configuration)
    }

    private static func environment(_ name: String) -> String? {
        ProcessInfo.processInfo.environment[name]
    }

    private func request(_ url: String) throws -> URLRequest {
        guard let parsed = URL(string: url) else { throw ValidationFailure("bad URL \(url)") }
        return URLRequest(url: parsed)
    }

    func get(_ url: String, closeConnection: Bool) async throws -> Fetched {
        var request = try request(url)
        if closeConnection { request.setValue("close", forHTTPHeaderField: "Connection") }
        let (data, response) = try await session.data(for: request)
        return Fetched(status: (response as? HTTPURLResponse)?.statusCode ?? 0, bodyBytes: data.count)
    }

    func getJSON(_ url: String) async throws -> BenchDocument {
        let (data, response) = try await session.data(for: try request(url))
        let status = (response as? HTTPURLResponse)?.statusCode ?? 0
        guard status == 200 else { throw ValidationFailure("unexpected status \(status)") }
        return try JSONDecoder().decode(BenchDocument.self, from: data)
    }

    func download(_ url: String, to path: String) async throws -> Fetched {
        let (temporary, response) = try await session.download(for: try request(url))
        let destination = URL(fileURLWithPath: path)
        let files = FileManager.default
        if files.fileExists(atPath: path) { try files.removeItem(at: destination) }
        try files.moveItem(at: temporary, to: destination)
        return Fetched(status: (response as? HTTPURLResponse)?.statusCode ?? 0, bodyBytes: fileSize(path) ?? 0)
    }

    func upload(file path: String, size: Int, to url: String) async throws -> Fetched {
        var request = try request(url)
        request.httpMethod = "POST"
        request.setValue("application/octet-stream", forHTTPHeaderField: "Content-Type")
        let (data, response) = try await session.upload(for: request, fromFile: URL(fileURLWithPath: path))
        return Fetched(status: (response as? HTTPURLResponse)?.statusCode ?? 0, bodyBytes: data.count)
    }

    func stream(_ url: String) async throws -> Fetched {
        let request = try request(url)
        let counter = ChunkCounter()
        // The delegate is the session's: corelibs delivers `didReceive` only to a session delegate.
        let streaming = URLSession(configuration: session.configuration, delegate: counter, delegateQueue: nil)
        defer { streaming.finishTasksAndInvalidate() }
        return try await withCheckedThrowingContinuation { continuation in
            counter.wait(continuation)
            streaming.dataTask(with: request).resume()
        }
    }

    func shutdown() async throws {
        session.finishTasksAndInvalidate()
    }
}

// URLSession never resumes TLS sessions on Linux: corelibs-foundation gives every task its own
// libcurl easy handle and shares no session cache between them (measured with nginx's
// $ssl_session_reused: 0 of 20 new connections resumed). So --no-resume changes nothing here.
await peerMain(name: "urlsession") { options in
    (try URLSessionPeer(options: options), "off")
}
