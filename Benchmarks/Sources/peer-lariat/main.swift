// peer-lariat: the benchmark contract (README.md) on Lariat's Alamofire-shaped `Client` API.
//
// Only what a user would write: one `Session` (`URLSessionConfiguration.af.default` with
// `httpMaximumConnectionsPerHost = --connections`, a `TLSConfiguration` trusting `--cacert`),
// `request(_:).serializingData()`, `serializingDecodable(_:)`, `download(_:to:)` (the body is
// written to the file as it arrives) and `upload(_ fileURL:to:)` (the file is streamed).
import BenchSupport
import Client
import TLS
import Foundation  // not FoundationNetworking: Client provides URLRequest/URLSessionConfiguration itself

struct LariatPeer: PeerClient {
    let session: Session

    init(options: BenchOptions) throws {
        let configuration = URLSessionConfiguration.af.default
        configuration.httpMaximumConnectionsPerHost = options.connections
        var tls = TLSConfiguration()
        if let cacert = options.cacert { tls.trustRoots = .file(cacert) }
        tls.sessionResumption = options.tlsResumption
        session = Session(configuration: configuration, tlsConfiguration: tls)
    }

    func get(_ url: String, closeConnection: Bool) async throws -> Fetched {
        let headers: HTTPHeaders = closeConnection ? ["Connection": "close"] : [:]
        let response = await session.request(url, headers: headers).serializingData().response
        let data = try response.result.get()
        return Fetched(status: response.response?.statusCode ?? 0, bodyBytes: data.count)
    }

    func getJSON(_ url: String) async throws -> BenchDocument {
        try await session.request(url).validate(statusCode: 200..<300)
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

    func shutdown() async throws {}
}

await peerMain(name: "lariat") { options in
    (try LariatPeer(options: options), options.tlsResumption ? "on" : "off")
}
