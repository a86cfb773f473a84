// peer-openapi-urlsession: the generated OpenAPI client (BenchOpenAPI) over
// swift-openapi-urlsession's `URLSessionTransport`, on a `URLSession` configured as
// peer-urlsession's (connections per host = `--connections`, no cache).
import BenchOpenAPI
import BenchSupport
import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import OpenAPIURLSession

await peerMain(name: "openapi-urlsession") { options in
    let configuration = URLSessionConfiguration.default
    configuration.httpMaximumConnectionsPerHost = options.connections
    configuration.urlCache = nil
    configuration.requestCachePolicy = .reloadIgnoringLocalCacheData
    configuration.timeoutIntervalForRequest = 300
    let session = URLSession(configuration: configuration)
    let transport = URLSessionTransport(configuration: .init(session: session))
    return (try OpenAPIPeer(options: options, transport: transport, shutdown: { session.finishTasksAndInvalidate() }), "off")
}
