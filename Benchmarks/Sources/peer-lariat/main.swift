// peer-lariat: the benchmark contract (README.md) on Lariat's Alamofire-shaped `Client` API.
//
// Only what a user would write: one `Session` (`URLSessionConfiguration.af.default` with
// `httpMaximumConnectionsPerHost = --connections` and no `urlCache`, a `TLSConfiguration`
// trusting `--cacert`), `request(_:).serializingData()`, `serializingDecodable(_:)`, `download(_:to:)` (the body is
// written to the file as it arrives), `upload(_ fileURL:to:)` (the file is streamed) and
// `streamRequest(_:).streamTask().streamingData()` (each chunk counted and dropped).
//
// `LARIAT_PEER_EXECUTOR=loop` (the runner's `lariat-loop` client) runs the whole workload, the
// driver's loop included, inside `withTaskExecutorPreference(loop)`, where `loop` is the only
// loop of a one-thread `EventLoopGroup` given to the `Session`: every connection lives on the
// loop the awaiting code runs on, as with wrk's single thread. Each request checks that it
// really runs on the loop and fails the run otherwise.
import BenchSupport
import Client
import TLS
import Foundation  // not FoundationNetworking: Client provides URLRequest/URLSessionConfiguration itself

/// The loop mode's one-loop group (never shut down: it lives as long as the process), or nil
/// in the default mode, which uses `EventLoopGroup.shared` like any user who names no group.
let loopGroup: EventLoopGroup? =
    ProcessInfo.processInfo.environment["LARIAT_PEER_EXECUTOR"] == "loop" ? EventLoopGroup(numberOfThreads: 1) : nil
/// The loop the workload prefers in the loop mode.
let preferredLoop: EventLoop? = loopGroup?.loops[0]

/// Thrown in the loop mode when a request's code is not on the preferred loop.
struct NotOnLoop: Error {}

struct LariatPeer: PeerClient {
    let session: Session

    init(options: BenchOptions) throws {
        let configuration = URLSessionConfiguration.af.default
        configuration.httpMaximumConnectionsPerHost = options.connections
        // No cache: every request must reach the server, as with every other peer (`.default`
        // uses URLCache.shared, which would answer nginx's Last-Modified files from memory).
        configuration.urlCache = nil
        var tls = TLSConfiguration()
        if let cacert = options.cacert { tls.trustRoots = .file(cacert) }
        tls.sessionResumption = options.tlsResumption
        session = Session(configuration: configuration, eventMonitors: [AlamofireNotifications()] + PeerMonitors.fromEnvironment(),
                          tlsConfiguration: tls, eventLoopGroup: loopGroup ?? .shared)
    }

    /// Fails the request in the loop mode if its code does not run on the preferred loop.
    private func checkOnLoop() throws {
        if let preferredLoop, !preferredLoop.inEventLoop { throw NotOnLoop() }
    }

    func get(_ url: String, closeConnection: Bool) async throws -> Fetched {
        try checkOnLoop()
        let headers: HTTPHeaders = closeConnection ? ["Connection": "close"] : [:]
        let response = await session.request(url, headers: headers).serializingData().response
        let data = try response.result.get()
        return Fetched(status: response.response?.statusCode ?? 0, bodyBytes: data.count)
    }

    func getJSON(_ url: String) async throws -> BenchDocument {
        try checkOnLoop()
        return try await session.request(url).validate(statusCode: 200..<300)
            .serializingDecodable(BenchDocument.self).value
    }

    func download(_ url: String, to path: String) async throws -> Fetched {
        let destination = URL(fileURLWithPath: path)
        let response = await session.download(url, to: { _, _ in (destination, [.removePreviousFile]) })
            .serializingDownloadedFileURL().response
        let file = try response.result.get()
        let size = try FileManager.default.attributesOfItem(atPath: file.path)[.size] as? Int ?? -1
        return Fetched(status: response.response?.statusCode ?? 0, bodyBytes: size)
    }

    func upload(file path: String, size: Int, to url: String) async throws -> Fetched {
        let headers: HTTPHeaders = ["Content-Type": "application/octet-stream"]
        let response = await session.upload(URL(fileURLWithPath: path), to: url, headers: headers).serializingData().response
        let data = try response.result.get()
        return Fetched(status: response.response?.statusCode ?? 0, bodyBytes: data.count)
    }

    func stream(_ url: String) async throws -> Fetched {
        try checkOnLoop()
        var bytes = 0
        for await stream in session.streamRequest(url).streamTask().streamingData() {
            switch stream.event {
            case .stream(.success(let data)):
                bytes += data.count
            case .complete(let completion):
                if let error = completion.error { throw error }
                return Fetched(status: completion.response?.statusCode ?? 0, bodyBytes: bytes)
            }
        }
        throw ValidationFailure("the stream ended without a completion")
    }

    func shutdown() async throws {}
}

/// Runs the peer. Nonisolated, so inside a task executor preference it runs on that executor.
nonisolated func runPeer() async -> Never {
    await peerMain(name: preferredLoop == nil ? "lariat" : "lariat-loop") { options in
        (try LariatPeer(options: options), options.tlsResumption ? "on" : "off")
    }
}

if let preferredLoop {
    await withTaskExecutorPreference(preferredLoop) { () async -> Void in await runPeer() }
}
await runPeer()
