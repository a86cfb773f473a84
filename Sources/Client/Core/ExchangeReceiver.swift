#if FullFoundation
import Foundation
#else
import FoundationEssentials
#endif
import Transport

// One exchange's response path (after async-http-client's `RequestBag` and Go's `RoundTripper`
// stages). The request is its exchanges' receiver: `Request.send` hands `self` to each
// `Exchange` and starts a fresh `ExchangeReceiver` (the stages' state: no object of its own, it
// lives in the request). The transport calls the request on one thread at a time, in order: the
// connection's loop for the head, each run of body bytes and the end (the sending thread, for a
// response served from the cache; the pool's thread for a failure before any connection). So the
// receiver's fields need no lock. A request's exchanges do not overlap: the next one is built
// only after the last one's end reached the state machine (a follow-up, a retry), which orders
// its fresh `ExchangeReceiver` after every access of the last. After the end, a held redirect is
// replayed through the stages on the request's queue: the end happened-before that, through the
// request's mutex (the machine's `askRedirectHandler`).
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
// It reports to the request's machine at the head (`headArrived`: the machine's transition and
// the follow-up's record, one lock) and at the end (`exchangeEnded`). A run of body bytes takes
// two locks: the sink's (a DataRequest's buffer) and the progress counter's.
//
// Lifetime: the exchange holds the request strongly (a weak reference would cost the request a
// side-table allocation). The cycle that closes (request ─▶ state machine ─▶ exchange ─▶
// request) lasts while the machine holds the exchange: the machine lets go of it at the
// exchange's end (`transportEnded`), or when a held, never-sent exchange is cancelled or
// dropped, and the pool lets go of it once it delivered the terminal event. A finished request
// holds no exchange (`RequestStateMachine.activeExchange` is `nil` from `completing` on).

/// The state of one exchange's response stages; see the file comment. Kept in the request
/// (`Request.receiver`), replaced for every exchange.
struct ExchangeReceiver {
    /// The attempt's task stand-in, made with the exchange.
    let task: URLSessionTask?
    /// Where the body goes.
    var route = FollowUpRoute()
    /// The body's decoder, made from the head.
    var decoding = ContentDecodingStage()
    /// Body bytes received from the wire on this exchange (the task's count).
    var received: Int64 = 0

    init(task: URLSessionTask? = nil) {
        self.task = task
    }
}

extension Request: ExchangeEventReceiver {
    package func exchangeEvent(_ event: TransportEvent) {
        switch event {
        case .head(let head): receiveHead(head)
        case .bodySent(let sent, let total): bodySent(sent, of: total)
        case .end(let summary): endExchange(summary, failure: nil)
        case .failure(let error, let partial) where error.kind == .cancelled && receiver.route.isAbandoned:
            endExchange(partial, failure: nil)  // closed by us: a follow-up's body was too long to drain
        case .failure(let error, let partial): endExchange(partial, failure: error)
        }
    }

    package func exchangeBody(_ bytes: UnsafeRawBufferPointer) {
        guard receiver.route.delivers else {
            if receiver.route.drain(bytes) { cancelActiveExchange() }
            return
        }
        receiveBody(bytes)
    }

    // MARK: Stages

    private func receiveHead(_ wire: TransportResponseHead) {
        // cache: a 304 answering our revalidation stands for the stored response and its body.
        let (head, stored) = cacheView(of: wire)
        // follow-up route: a redirect or an answered challenge takes the body away.
        guard let mode = headArrived(head) else { return }  // cancelled meanwhile
        receiver.route.start(mode, head: head)
        // cookies, from every head, a redirect's included.
        storeCookies(from: head)
        guard receiver.route.delivers else { return record(head: head) }
        deliverHead(head, wire: wire, stored: stored)
    }

    /// The head's stages after the route, for a delivered head (and a held one, replayed).
    private func deliverHead(_ head: TransportResponseHead, wire: TransportResponseHead, stored: Data?) {
        // content decoder, from the wire's head (a stored body is already decoded).
        receiver.decoding.prepare(for: wire, configuration: context.contentDecoding, reading: context.responseReading)
        // progress: the download's total.
        expectBody(length: wire.contentLength)
        // sink: the subclass records the head (a DataRequest reserves its buffer).
        didReceive(head: head)
        stored?.withUnsafeBytes { didReceiveBody($0) }
        // monitors.
        if let response { taskReceived(response, expectedLength: wire.contentLength, task: receiver.task) }
    }

    private func receiveBody(_ bytes: UnsafeRawBufferPointer) {
        // content decoder, then the sink (a copy of the stage: no access to `receiver` is held
        // while the sink runs).
        let decoding = receiver.decoding
        decoding.decode(bytes, into: self)
        // progress: the task's count, then the download's.
        receiver.received += Int64(bytes.count)
        let task = receiver.task
        task?.recordBytesReceived(receiver.received)
        bodyReceived(bytes.count)
        // monitors: a copy of the chunk, only when one listens.
        taskReceived(bytes, task: task)
    }

    private func endExchange(_ summary: TransportSummary?, failure: TransportError?) {
        // content decoder: a body that stopped inside its coded stream fails.
        receiver.decoding.finish(complete: failure == nil, self)
        exchangeEnded(summary: summary, failure: failure)
    }

    // MARK: A held redirect

    /// The redirect handler declined the held redirect: its head and body go through the
    /// delivering stages now, as a response's would have. A body that passed the drain cap was
    /// cut off on the wire: the request fails rather than deliver part. On the request's queue,
    /// after the exchange ended.
    func deliverHeld() {
        guard let (hop, complete) = receiver.route.takeHeld() else { return }
        guard complete else {
            let failure = AFError.sessionTaskFailed(error: URLError(.dataLengthExceedsMaximum, userInfo: inFlightRequest?.url.map {
                [NSURLErrorFailingURLErrorKey: $0]
            } ?? [:]))
            return recordError(failure)
        }
        deliverHead(hop.head, wire: hop.head, stored: nil)
        for chunk in hop.body { chunk.withUnsafeBytes { receiveBody($0) } }
        receiver.decoding.finish(complete: true, self)
        transferEnded()
    }
}
