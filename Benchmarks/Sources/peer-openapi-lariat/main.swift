// peer-openapi-lariat: the generated OpenAPI client (BenchOpenAPI) over LariatOpenAPI's
// `LariatTransport` on a `Session` configured as peer-lariat's (connections per host =
// `--connections`, no URL cache).
import BenchOpenAPI
import BenchSupport
import Client
import LariatOpenAPI

await peerMain(name: "openapi-lariat") { options in
    let configuration = URLSessionConfiguration.af.default
    configuration.httpMaximumConnectionsPerHost = options.connections
    configuration.urlCache = nil
    let session = Session(configuration: configuration)
    return (try OpenAPIPeer(options: options, transport: LariatTransport(session: session)), "off")
}
