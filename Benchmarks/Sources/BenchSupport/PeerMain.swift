// Shared `main` of every peer: parse, build the client, run, print one line, exit.
#if canImport(Glibc)
import Glibc
#endif

/// How a peer builds its client for a run.
///
/// Returns the client and what it does about TLS session resumption (`"on"`/`"off"`), or
/// throws ``Unsupported`` for options it cannot honour.
public typealias PeerFactory<Client: PeerClient> = (BenchOptions) throws -> (client: Client, tlsResumption: String)

/// Entry point of a peer executable; never returns.
///
/// Exit status: 0 with exactly one JSON line on stdout; 1 on a failed run, 2 on a usage
/// error, 3 when the peer cannot honour the options. Diagnostics go to stderr only.
/// - Parameters:
///   - name: the peer's name in the result line, e.g. `"ahc"`.
///   - arguments: the command line without the program name; `CommandLine.arguments` by default.
///   - makeClient: builds the client for the parsed options.
public func peerMain<Client: PeerClient>(
    name: String,
    arguments: [String] = Array(CommandLine.arguments.dropFirst()),
    makeClient: PeerFactory<Client>
) async -> Never {
    let options: BenchOptions
    do {
        options = try BenchOptions.parse(arguments)
    } catch {
        fail(2, "\(name): \(error)\n\(BenchOptions.usage)")
    }
    let made: (client: Client, tlsResumption: String)
    do {
        made = try makeClient(options)
    } catch let error as Unsupported {
        fail(3, "\(name): unsupported: \(error)")
    } catch {
        fail(1, "\(name): cannot create client: \(error)")
    }
    let outcome: Result<BenchResult, any Error>
    do {
        outcome = .success(
            try await runWorkload(made.client, name: name, options: options, tlsResumption: made.tlsResumption))
    } catch {
        outcome = .failure(error)
    }
    do {
        try await made.client.shutdown()
    } catch {
        writeStandardError("\(name): shutdown: \(error)\n")
    }
    switch outcome {
    case .success(let result):
        print(result.jsonLine)
        exit(0)  // exit() flushes stdio, so the line is complete before the process ends
    case .failure(let error as Unsupported):
        fail(3, "\(name): unsupported: \(error)")
    case .failure(let error):
        fail(1, "\(name): \(options.workload.rawValue) failed: \(error)")
    }
}

private func fail(_ status: Int32, _ message: String) -> Never {
    writeStandardError(message + "\n")
    exit(status)
}

/// Writes to file descriptor 2 directly (the `stderr` C global is not concurrency-safe).
private func writeStandardError(_ text: String) {
    var bytes = Array(text.utf8)
    var offset = 0
    while offset < bytes.count {
        let written = bytes.withUnsafeMutableBytes { write(2, $0.baseAddress! + offset, $0.count - offset) }
        if written < 0, errno == EINTR { continue }
        guard written > 0 else { return }
        offset += written
    }
}
