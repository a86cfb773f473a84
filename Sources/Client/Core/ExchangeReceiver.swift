#if FullFoundation
import Foundation
#else
import FoundationEssentials
#endif
import Transport

// One exchange's response path (after async-http-client's `RequestBag` and Go's `RoundTripper`
// stages). `Request.send` makes one per exchange and hands it to the `Exchange`; the transport
// calls it on one thread at a time, in order: the connection's loop for the head, each run of
// body bytes and the end (the sending thread, for a response served from the cache; the pool's
// thread for a failure before any connection). So its own fields need no lock. After the end, a
// held redirect is replayed through it on the request's queue: the end happened-before that,
// through the request's mutex (the machine's `askRedirectHandler`).
//
// The stages, in the order every head and every run of body bytes meets them:
//
//   head: cache ─▶ follow-up route ─▶ cookies ─▶ content decoder ─▶ progress ─▶ sink ─▶ monitors
//   body:          follow-up route ─────────────▶ content decoder ─▶ sink ─▶ progress ─▶ monitors
//   end:                                          content decoder ─▶ Request.exchangeEnded
//
//   cache            Features/Cache/Request+Cache          a 304 to our revalidation stands for the stored response
//   follow-up route  Features/Redirects/FollowUpRoute      deliver, discard, or hold the body for a redirect handler
//                    (judged in Features/Redirects/Request+FollowUp)
//   cookies          Features/Cookies/Session+Cookies      Set-Cookie of every head, a redirect's too
//   content decoder  Features/ContentCoding/ContentDecodingStage
//   progress         Core/Request+Progress.swift           the task's byte count (atomic) and the download's progress
//   sink             the subclass's didReceive(head:)/didReceiveBody: buffer, file, or stream
//   monitors         Core/Request+Lifecycle.swift          didReceive response / data for event monitors
//
// It reports to `Request` at the head (`headArrived`: the machine's transition and the
// follow-up's record, one lock) and at the end (`exchangeEnded`). A run of body bytes takes two
// locks: the sink's (a DataRequest's buffer) and the progress counter's.

/// Runs one exchange's response stages; see the file comment.
///
/// `@unchecked Sendable`: its mutable fields are touched by one thread at a time, in the order
/// the file comment gives, and never concurrently.
final class ExchangeReceiver: ExchangeEventReceiver, @unchecked Sendable {
    /// The request, held strongly from the hand-off to the transport (``attach(_:)``) to the
    /// exchange's terminal event (`end`), which clears it. Strong, not weak: a weak reference
    /// costs the request a side-table allocation. The cycle it closes while the exchange runs
    /// (request ─▶ state machine/`mutable.receiver` ─▶ this ─▶ request) is broken at that end,
    /// which every handed-off exchange reaches exactly once (`Exchange.complete`: the pool ends
    /// a cancelled one wherever it is; the cache and file paths complete theirs). An exchange
    /// never handed off (built held, then cancelled or dropped) never had the reference.
    private var request: Request?
    /// The attempt's task stand-in, made with the exchange.
    private let task: URLSessionTask?
    /// Where the body goes.
    private var route = FollowUpRoute()
    /// The body's decoder, made from the head.
    private var decoding = ContentDecodingStage()
    /// Body bytes received from the wire on this exchange (the task's count).
    private var received: Int64 = 0

    init(task: URLSessionTask?) {
        self.task = task
    }

    /// Takes the request just before the exchange goes to the transport (the pool, the cache or
    /// the file reader), on the thread handing it off: that hand-off orders this write before
    /// every event. See ``request`` for when it is let go.
    func attach(_ request: Request) {
        self.request = request
    }

    func exchangeEvent(_ event: TransportEvent) {
        guard let request else { return }
        switch event {
        case .head(let head): receive(head, request)
        case .bodySent(let sent, let total): request.bodySent(sent, of: total)
        case .end(let summary): end(summary, failure: nil, request)
        case .failure(let error, let partial) where error.kind == .cancelled && route.isAbandoned:
            end(partial, failure: nil, request)  // closed by us: a follow-up's body was too long to drain
        case .failure(let error, let partial): end(partial, failure: error, request)
        }
    }

    func exchangeBody(_ bytes: UnsafeRawBufferPointer) {
        guard route.delivers else {
            if route.drain(bytes) { request?.cancelActiveExchange() }
            return
        }
        guard let request else { return }
        body(bytes, request)
    }

    // MARK: Stages

    private func receive(_ wire: TransportResponseHead, _ request: Request) {
        // cache: a 304 answering our revalidation stands for the stored response and its body.
        let (head, stored) = request.cacheView(of: wire)
        // follow-up route: a redirect or an answered challenge takes the body away.
        guard let mode = request.headArrived(head) else { return }  // cancelled meanwhile
        route.start(mode, head: head)
        // cookies, from every head, a redirect's included.
        request.storeCookies(from: head)
        guard route.delivers else { return request.record(head: head) }
        deliver(head, wire: wire, stored: stored, request)
    }

    /// The head's stages after the route, for a delivered head (and a held one, replayed).
    private func deliver(_ head: TransportResponseHead, wire: TransportResponseHead, stored: Data?, _ request: Request) {
        // content decoder, from the wire's head (a stored body is already decoded).
        decoding.prepare(for: wire, configuration: request.context.contentDecoding, reading: request.context.responseReading)
        // progress: the download's total.
        request.expectBody(length: wire.contentLength)
        // sink: the subclass records the head (a DataRequest reserves its buffer).
        request.didReceive(head: head)
        stored?.withUnsafeBytes { request.didReceiveBody($0) }
        // monitors.
        if let response = request.response { request.taskReceived(response, expectedLength: wire.contentLength, task: task) }
    }

    private func body(_ bytes: UnsafeRawBufferPointer, _ request: Request) {
        // content decoder, then the sink.
        decoding.decode(bytes, into: request)
        // progress: the task's count, then the download's.
        received += Int64(bytes.count)
        task?.recordBytesReceived(received)
        request.bodyReceived(bytes.count)
        // monitors: a copy of the chunk, only when one listens.
        request.taskReceived(bytes, task: task)
    }

    private func end(_ summary: TransportSummary?, failure: TransportError?, _ request: Request) {
        // The terminal event: the request is let go (see `request`); a held redirect is
        // replayed later with the request passed in.
        self.request = nil
        // content decoder: a body that stopped inside its coded stream fails.
        decoding.finish(complete: failure == nil, request)
        request.exchangeEnded(summary: summary, failure: failure)
    }

    // MARK: A held redirect

    /// The redirect handler declined the held redirect: its head and body go through the
    /// delivering stages now, as a response's would have. A body that passed the drain cap was
    /// cut off on the wire: the request fails rather than deliver part. On the request's queue,
    /// after the exchange ended.
    func deliverHeld(_ request: Request) {
        guard let (hop, complete) = route.takeHeld() else { return }
        guard complete else {
            let failure = AFError.sessionTaskFailed(error: URLError(.dataLengthExceedsMaximum, userInfo: request.inFlightRequest?.url.map {
                [NSURLErrorFailingURLErrorKey: $0]
            } ?? [:]))
            return request.recordError(failure)
        }
        deliver(hop.head, wire: hop.head, stored: nil, request)
        for chunk in hop.body { chunk.withUnsafeBytes { body($0, request) } }
        decoding.finish(complete: true, request)
        request.transferEnded()
    }
}
