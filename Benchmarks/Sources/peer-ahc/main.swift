// peer-ahc: the benchmark contract (README.md) on swift-server/async-http-client.
//
// Each operation is written the way AHC's README and docs show it: the async/await
// `execute(_:timeout:)` API with `body.collect(upTo:)` (or, for `stream`, iterating `body`'s
// `ByteBuffer`s and counting them), `JSONDecoder` over a `ByteBuffer`
// (NIOFoundationCompat), `FileDownloadDelegate` for downloads to disk, and a request body
// streamed from NIOFileSystem's `readChunks` for uploads.
import AsyncHTTPClient
import BenchSupport
import Foundation
import NIOCore
import NIOFileSystem
import NIOFoundationCompat
import NIOHTTP1
import NIOPosix
import NIOSSL

/// Upper bound for an in-memory body; the largest benchmark file is 100 MiB.
let maxBodyBytes = 256 * 1024 * 1024
/// Generous per-request deadline: bulk transfers on a loaded machine can take seconds.
let requestTimeout = TimeAmount.seconds(300)

struct AHCPeer: PeerClient {
    let client: HTTPClient

    init(options: BenchOptions) throws {
        var configuration = HTTPClient.Configuration()
        // The default soft limit is 8 connections per host; the contract says "up to C".
        configuration.connectionPool = .init(
            idleTimeout: .seconds(60), concurrentHTTP1ConnectionsPerHostSoftLimit: options.connections)
        if let cacert = options.cacert {
            var tls = TLSConfiguration.makeClientConfiguration()
            tls.trustRoots = .file(cacert)
            configuration.tlsConfiguration = tls
        }
        client = HTTPClient(eventLoopGroup: MultiThreadedEventLoopGroup.singleton, configuration: configuration)
    }

    func get(_ url: String, closeConnection: Bool) async throws -> Fetched {
        var request = HTTPClientRequest(url: url)
        if closeConnection { request.headers.add(name: "Connection", value: "close") }
        let response = try await client.execute(request, timeout: requestTimeout)
        let body = try await response.body.collect(upTo: maxBodyBytes)
        return Fetched(status: Int(response.status.code), bodyBytes: body.readableBytes)
    }

    func getJSON(_ url: String) async throws -> BenchDocument {
        let response = try await client.execute(HTTPClientRequest(url: url), timeout: requestTimeout)
        let body = try await response.body.collect(upTo: maxBodyBytes)
        guard response.status == .ok else { throw ValidationFailure("unexpected status \(response.status.code)") }
        return try JSONDecoder().decode(BenchDocument.self, from: body)
    }

    func download(_ url: String, to path: String) async throws -> Fetched {
        let delegate = try FileDownloadDelegate(path: path)
        let request = try HTTPClient.Request(url: url)
        let progress = try await client.execute(request: request, delegate: delegate).futureResult.get()
        return Fetched(status: Int(progress.head.status.code), bodyBytes: progress.receivedBytes)
    }

    func upload(file path: String, size: Int, to url: String) async throws -> Fetched {
        try await FileSystem.shared.withFileHandle(forReadingAt: FilePath(path)) { handle in
            var request = HTTPClientRequest(url: url)
            request.method = .POST
            request.headers.add(name: "Content-Type", value: "application/octet-stream")
            request.body = .stream(
                handle.readChunks(in: 0..<Int64(size), chunkLength: .kibibytes(128)), length: .known(Int64(size)))
            let response = try await client.execute(request, timeout: requestTimeout)
            let body = try await response.body.collect(upTo: maxBodyBytes)
            return Fetched(status: Int(response.status.code), bodyBytes: body.readableBytes)
        }
    }

    func stream(_ url: String) async throws -> Fetched {
        let response = try await client.execute(HTTPClientRequest(url: url), timeout: requestTimeout)
        var bytes = 0
        for try await buffer in response.body { bytes += buffer.readableBytes }
        return Fetched(status: Int(response.status.code), bodyBytes: bytes)
    }

    func shutdown() async throws {
        try await client.shutdown()
    }
}

// swift-nio-ssl exposes no client-side session cache, so every new connection does a full
// handshake whether or not --no-resume is given; the result line says so ("off").
await peerMain(name: "ahc") { options in
    (try AHCPeer(options: options), "off")
}
