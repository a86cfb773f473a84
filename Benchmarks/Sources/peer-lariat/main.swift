// peer-lariat: the benchmark contract (README.md) on Lariat's Alamofire-shaped `Client` API.
//
// Only what a user would write: one `Session` (`URLSessionConfiguration.af.default` with
// `httpMaximumConnectionsPerHost = --connections`), `request(_:).serializingData()`,
// `serializingDecodable(_:)`.
//
// Gaps in Lariat today, stated rather than hidden:
// - no streaming download API (`download(_:to:)` / `DownloadRequest` do not exist yet): the
//   `download-file` workload collects the body in memory and then writes it to `--out`, so its
//   peak RSS includes the whole body;
// - no upload API (`upload(_:to:)`): the file is read into `URLRequest.httpBody` and POSTed, not
//   streamed;
// - no custom-CA / server-trust option on `Session`: https workloads answer "unsupported" (3).
import BenchSupport
import Client
import Foundation  // not FoundationNetworking: Client provides URLRequest/URLSessionConfiguration itself

struct LariatPeer: PeerClient {
    let session: Session

    init(options: BenchOptions) throws {
        if options.url.lowercased().hasPrefix("https://") {
            throw Unsupported("https: Lariat's Session has no option to trust a custom CA (--cacert) yet")
        }
        let configuration = URLSessionConfiguration.af.default
        configuration.httpMaximumConnectionsPerHost = options.connections
        session = Session(configuration: configuration)
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
        // No streaming download in Lariat yet: collect, then write.
        let response = await session.request(url).serializingData().response
        let data = try response.result.get()
        try data.write(to: URL(fileURLWithPath: path))
        return Fetched(status: response.response?.statusCode ?? 0, bodyBytes: data.count)
    }

    func upload(file path: String, size: Int, to url: String) async throws -> Fetched {
        // No upload API in Lariat yet: the body is the whole file in memory.
        guard let parsed = URL(string: url) else { throw ValidationFailure("bad URL \(url)") }
        var request = URLRequest(url: parsed)
        request.httpMethod = "POST"
        request.setValue("application/octet-stream", forHTTPHeaderField: "Content-Type")
        request.httpBody = try Data(contentsOf: URL(fileURLWithPath: path))
        let response = await session.request(request).serializingData().response
        let data = try response.result.get()
        return Fetched(status: response.response?.statusCode ?? 0, bodyBytes: data.count)
    }

    func shutdown() async throws {}
}

await peerMain(name: "lariat") { options in
    (try LariatPeer(options: options), "off")
}
