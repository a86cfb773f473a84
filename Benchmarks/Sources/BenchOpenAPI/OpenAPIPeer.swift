// The OpenAPI row's peer (issue 20): the generated client of openapi.yaml (Generated/), one
// `getCatalogue()` per request, over whichever `ClientTransport` the executable passes in. The
// three OpenAPI peers differ only in that transport, so the row measures the transports.
import BenchSupport
import Foundation
import OpenAPIRuntime

/// A ``PeerClient`` whose `get` is the generated `getCatalogue()` over `transport`.
///
/// Only the `seq` and `concurrent` workloads against `/1k.json` are meaningful; the others
/// throw ``Unsupported``.
public struct OpenAPIPeer: PeerClient {
    private let api: any APIProtocol
    private let onShutdown: @Sendable () async throws -> Void

    /// Creates the peer for `options.url`, whose path must be the operation's, `/1k.json`.
    /// - Parameters:
    ///   - options: the parsed command line.
    ///   - transport: the transport under test.
    ///   - shutdown: releases the transport's client after the run.
    /// - Throws: ``Unsupported`` for another path or an option the row does not use.
    public init(options: BenchOptions, transport: any ClientTransport,
                shutdown: @escaping @Sendable () async throws -> Void = {}) throws {
        guard let url = URL(string: options.url), url.path == "/1k.json",
              let scheme = url.scheme, let host = url.host,
              let server = URL(string: "\(scheme)://\(host)\(url.port.map { ":\($0)" } ?? "")")
        else { throw Unsupported("the OpenAPI peers only GET /1k.json (the openapi-* cases)") }
        guard options.cacert == nil else { throw Unsupported("the OpenAPI row is plain http") }
        api = Client(serverURL: server, transport: transport)
        onShutdown = shutdown
    }

    /// Calls `getCatalogue()`, decodes the typed body and checks it is the fixture.
    public func get(_ url: String, closeConnection: Bool) async throws -> Fetched {
        guard !closeConnection else { throw Unsupported("no Connection: close through the generated client") }
        let catalogue = try await api.getCatalogue().ok.body.json
        // scripts/fixtures/openapi-1k.json: 8 items, quantities 3...10.
        guard catalogue.items.count == 8, catalogue.items.reduce(0, { $0 + $1.quantity }) == 52 else {
            throw ValidationFailure("decoded catalogue differs from the fixture")
        }
        return Fetched(status: 200, bodyBytes: 1024)
    }

    /// Not part of the row.
    public func getJSON(_ url: String) async throws -> BenchDocument { throw Unsupported("openapi peers: seq/concurrent only") }
    /// Not part of the row.
    public func download(_ url: String, to path: String) async throws -> Fetched { throw Unsupported("openapi peers: seq/concurrent only") }
    /// Not part of the row.
    public func upload(file path: String, size: Int, to url: String) async throws -> Fetched {
        throw Unsupported("openapi peers: seq/concurrent only")
    }

    /// Runs the executable's shutdown closure.
    public func shutdown() async throws { try await onShutdown() }
}
