// peer-openapi-ahc: the generated OpenAPI client (BenchOpenAPI) over
// swift-openapi-async-http-client's `AsyncHTTPClientTransport`, on an `HTTPClient` configured as
// peer-ahc's (soft limit of `--connections` connections per host, the singleton event loop group).
import AsyncHTTPClient
import BenchOpenAPI
import BenchSupport
import NIOCore
import NIOPosix
import OpenAPIAsyncHTTPClient

await peerMain(name: "openapi-ahc") { options in
    var configuration = HTTPClient.Configuration()
    configuration.connectionPool = .init(
        idleTimeout: .seconds(60), concurrentHTTP1ConnectionsPerHostSoftLimit: options.connections)
    let client = HTTPClient(eventLoopGroup: MultiThreadedEventLoopGroup.singleton, configuration: configuration)
    let transport = AsyncHTTPClientTransport(configuration: .init(client: client))
    return (try OpenAPIPeer(options: options, transport: transport, shutdown: { try await client.shutdown() }), "off")
}
