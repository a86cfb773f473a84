// Workload: what each soak request is (nginx or a fault, which path, which expectation) and the
// worker pool that runs a phase of them through one Session.
import Client
import FoundationEssentials
#if FullFoundation
import Foundation  // URLError is Foundation's own in the default build; Client's without the trait
#endif
import Synchronization

/// Where the soak sends requests.
struct Targets: Sendable {
    /// nginx over plain HTTP, for example `http://127.0.0.1:8080`.
    var http: String
    /// nginx over TLS, for example `https://127.0.0.1:8443`.
    var https: String
    /// The fault server, `http://127.0.0.1:PORT`.
    var fault: String
    /// The fault server addressed as https: its first-byte check resets the handshake.
    var faultTLS: String
}

/// The three kinds of phases.
enum PhaseKind: String, Sendable {
    /// One session, reused keep-alive connections.
    case keepAlive = "keep-alive"
    /// `Connection: close` on every request, and a new session every batch.
    case newConnection = "new-connection"
    /// `Connection: close` over https without session resumption: a full handshake each time.
    case tls
}

/// One planned request.
struct Planned: Sendable {
    /// The URL.
    var url: String
    /// Extra headers.
    var headers: HTTPHeaders = [:]
    /// The expected outcome.
    var expectation: Expectation
    /// Cancel this long after the request was created (a random point of its life).
    var cancelAfter: Duration? = nil
    /// A per-request timeout (`URLRequest.timeoutInterval`), for stalls.
    var timeout: Double? = nil
    /// A name for violation messages.
    var label: String
}

/// The faults mixed into the phases, in rotation.
enum MixedFault: CaseIterable {
    /// The fault server resets the connection after the request head.
    case reset
    /// The fault server never answers; the request's 250 ms timeout fires.
    case stall
    /// The fault server answers bytes that are not an HTTP/1.1 response.
    case malformed
    /// The fault server closes 10 bytes into a 1000-byte body.
    case truncated
    /// An nginx request cancelled 0-3 ms after it was created (before, during or after the exchange).
    case cancel
    /// (TLS phase) The fault server resets the connection on the ClientHello.
    case tlsReset
    /// (TLS phase) A handshake with nginx's plain HTTP port, which answers 400 in clear text.
    case tlsToPlainServer
}

extension Planned {
    /// Request `index` of a phase of `kind`: nginx, except every `faultEvery`-th, which is a fault.
    static func make(index: Int, kind: PhaseKind, targets: Targets, faultEvery: Int) -> Planned {
        let close: HTTPHeaders = kind == .keepAlive ? [:] : ["Connection": "close"]
        let base = kind == .tls ? targets.https : targets.http
        if faultEvery > 0, index % faultEvery == faultEvery / 2 {
            let rotation = (index / faultEvery) % (kind == .tls ? 7 : 5)
            switch MixedFault.allCases[rotation] {
            case .reset: return Planned(url: targets.fault + "/reset", expectation: .error, label: "reset")
            case .stall:
                return Planned(url: targets.fault + "/stall", expectation: .error, timeout: 0.25, label: "stall")
            case .malformed: return Planned(url: targets.fault + "/malformed", expectation: .error, label: "malformed")
            case .truncated: return Planned(url: targets.fault + "/truncated", expectation: .error, label: "truncated")
            case .cancel:
                let delay = Duration.microseconds(Int.random(in: 0..<3000))
                return Planned(url: base + "/64k.bin", headers: close, expectation: .bodyOrCancelled(65536),
                               cancelAfter: delay, label: "cancel after \(delay)")
            case .tlsReset: return Planned(url: targets.faultTLS + "/", expectation: .error, label: "TLS reset")
            case .tlsToPlainServer:
                let plain = "https://" + targets.http.dropFirst("http://".count)
                return Planned(url: plain + "/1k.bin", expectation: .error, label: "TLS to plain server")
            }
        }
        if index % 10 == 3 {
            return Planned(url: base + "/64k.bin", headers: close, expectation: .body(65536), label: "\(kind) 64k")
        }
        return Planned(url: base + "/1k.bin", headers: close, expectation: .body(1024), label: "\(kind) 1k")
    }
}

/// Runs `indices` through `session` with `concurrency` workers; every request is counted in `tally`.
func runRequests(
    _ indices: Range<Int>, session: Session, concurrency: Int, tally: Tally,
    plan: @escaping @Sendable (Int) -> Planned
) async {
    let next = NextIndex(indices)
    await withTaskGroup(of: Void.self) { group in
        for _ in 0..<concurrency {
            group.addTask {
                while let index = next.take() {
                    await runOne(plan(index), session: session, tally: tally)
                }
            }
        }
    }
}

/// Issues one request and records how it ended.
private func runOne(_ planned: Planned, session: Session, tally: Tally) async {
    tally.issue()
    let timeout = planned.timeout
    let request = session.request(planned.url, headers: planned.headers, requestModifier: { request in
        if let timeout { request.timeoutInterval = timeout }
    })
    let task = request.serializingData()
    if let delay = planned.cancelAfter {
        if delay > .zero { try? await Task.sleep(for: delay) }
        request.cancel()
    }
    let response = await task.response
    tally.end(response.result.map(\.count), status: response.response?.statusCode,
              expected: planned.expectation, label: planned.label)
}

/// Hands out the indices of a range to concurrent workers.
private final class NextIndex: Sendable {
    private let state: Mutex<Range<Int>>

    /// Hands out `range`, lowest first.
    init(_ range: Range<Int>) { state = Mutex(range) }

    /// The next index, or nil when all were taken.
    func take() -> Int? { state.withLock { $0.popFirst() } }
}
