#if FullFoundation
import Foundation
#else
import FoundationEssentials
#endif
import Synchronization
import Wire
import Transport

// HTTP caching in the request path, for the GET requests of a DataRequest (not uploads,
// downloads or streams), with the session's URLCache:
//
//   send ──▶ cacheBeforeSend: the policy (the request's, or the configuration's when the request
//            says .useProtocolCachePolicy) and CacheFreshness decide:
//              fresh hit ─▶ the exchange is answered from the cache (serveFromCache), no I/O
//              stale hit with a validator ─▶ If-None-Match / If-Modified-Since added
//              miss under .returnCacheDataDontLoad ─▶ URLError.resourceUnavailable
//   head ──▶ cacheView(of:), the first stage of `ExchangeReceiver`: a 304 to our conditional request becomes the stored
//            response with the 304's fields merged in (RFC 9111 §4.3.4), its body fed in
//   end  ──▶ storeInCache: a storable response (CacheFreshness.isStorable) goes through the
//            request's or session's CachedResponseHandler into the cache; one to a request that
//            carried Authorization or a Cookie only if `public`, `s-maxage` or `must-revalidate`.

/// A request's caching state, inside `Request.Mutable`.
struct RequestCacheState {
    /// `cacheResponse(using:)`'s handler.
    var handler: (any CachedResponseHandler)?
    /// How the current exchange uses the cache.
    var use = CacheUse.network
    /// The current exchange carries a `Cookie` field (the request's own, or the cookie
    /// storage's): its response is stored only as RFC 9111 §3.5 allows `Authorization`'s.
    var sendsCookie = false
    /// When the current exchange's request was sent and its head arrived (seconds since 1970).
    var requestTime = 0.0
    var responseTime = 0.0
}

/// How an exchange uses the cache; one value, so "served" and "revalidating" cannot both hold.
enum CacheUse {
    /// From the network; the response may be stored if the rules allow.
    case network
    /// Answered with this stored response, without I/O; nothing is stored again.
    case serving(CachedURLResponse)
    /// A conditional request revalidates this stored response: a 304 refreshes it, anything
    /// else is a new response.
    case revalidating(CachedURLResponse)
    /// A 304 refreshed the stored response, which is the response: only the refresh is stored.
    case revalidated

    /// Whether the response came from the cache (served, or a 304 merged into the stored one).
    var isFromCache: Bool {
        switch self {
        case .serving, .revalidated: true
        case .network, .revalidating: false
        }
    }
}

/// What the cache says before an exchange.
enum CacheLookup {
    /// Send this request (maybe made conditional).
    case network(URLRequest)
    /// Answer with this stored response.
    case serve(CachedURLResponse)
    /// `.returnCacheDataDontLoad` and nothing stored.
    case unavailable
}

/// Numbers the task stand-ins handed to cache handlers.

extension Request {
    /// The handler set with ``cacheResponse(using:)``, if any.
    public var cachedResponseHandler: (any CachedResponseHandler)? { mutable.withLock { $0.cache.handler } }

    /// Sets the handler deciding what of this request's response is stored in the session's
    /// ``URLCache``; it wins over the session's.
    /// - Parameter handler: The handler.
    /// - Returns: The request.
    @discardableResult
    public func cacheResponse(using handler: any CachedResponseHandler) -> Self {
        mutable.withLock { $0.cache.handler = handler }
        return self
    }

    /// Whether this request uses the URL cache: a DataRequest's GET, when the session has a cache.
    private func cache(for request: URLRequest) -> URLCache? {
        guard let cache = context.urlCache, usesURLCache, request.method == .get else { return nil }
        return cache
    }

    /// The effective policy: the request's, or the configuration's for `.useProtocolCachePolicy`.
    private func policy(of request: URLRequest) -> URLRequest.CachePolicy {
        request.cachePolicy == .useProtocolCachePolicy ? context.configuration.requestCachePolicy : request.cachePolicy
    }

    /// Decides, before an exchange is made, whether the cache answers, or what to send.
    func cacheBeforeSend(_ request: URLRequest) -> CacheLookup {
        // Requests without a cache pay nothing here: no clock read, no lock.
        guard let cache = cache(for: request) else { return .network(request) }
        let now = Date().timeIntervalSince1970
        let sendsCookie = request.headers.value(for: "Cookie") != nil
            || request.url.map { context.settings.cookieFieldValue(for: request, url: $0) != nil } == true
        mutable.withLock { state in
            state.cache.use = .network
            (state.cache.requestTime, state.cache.sendsCookie) = (now, sendsCookie)
        }
        let policy = policy(of: request)
        switch policy {
        case .reloadIgnoringLocalCacheData, .reloadIgnoringLocalAndRemoteCacheData:
            return .network(request)
        default: break
        }
        guard let stored = cache.cachedResponse(for: request) else {
            return policy == .returnCacheDataDontLoad ? .unavailable : .network(request)
        }
        let serve: Bool
        switch policy {
        case .returnCacheDataElseLoad, .returnCacheDataDontLoad: serve = true
        case .reloadRevalidatingCacheData: serve = false
        default:
            serve = CacheFreshness.evaluate(requestHeaders: request.headers, responseHeaders: stored.response.headers,
                                            requestTime: stored.requestTime, responseTime: stored.responseTime, now: now) == .fresh
        }
        if serve {
            mutable.withLock { $0.cache.use = .serving(stored) }
            return .serve(stored)
        }
        // Stale: revalidate with the stored validators, unless the caller sent conditions of its own.
        var conditional = request
        let etag = stored.response.headers.value(for: "ETag")
        let lastModified = stored.response.headers.value(for: "Last-Modified")
        let callerConditions = request.headers.value(for: "If-None-Match") != nil || request.headers.value(for: "If-Modified-Since") != nil
        guard !callerConditions, etag != nil || lastModified != nil else { return .network(request) }
        if let etag { conditional.headers.update(name: "If-None-Match", value: etag) }
        if let lastModified { conditional.headers.update(name: "If-Modified-Since", value: lastModified) }
        mutable.withLock { $0.cache.use = .revalidating(stored) }
        return .network(conditional)
    }

    /// Answers `exchange` from the stored response chosen by ``cacheBeforeSend(_:)``, on this
    /// thread, as the transport would: head, body, end. Returns false when there is none.
    func serveFromCache(_ exchange: Exchange) -> Bool {
        guard case .serving(let stored) = mutable.withLock({ $0.cache.use }) else { return false }
        let head = stored.response
        var fields: [(name: String, value: String)] = []
        for field in head.headers { fields.append((field.name, field.value)) }
        exchange.deliver(.head(TransportResponseHead(status: head.statusCode, version: .http11, reason: "", fields: FieldBlock(fields),
                                                     contentLength: stored.data.count)))
        stored.data.withUnsafeBytes { exchange.deliverBody($0) }
        exchange.complete(.end(TransportSummary(timings: exchange.timings, isReusedConnection: false)))
        return true
    }

    /// The cache stage of `ExchangeReceiver`: the head the request sees, and a body to deliver
    /// with it. A 304 answering our revalidation becomes the stored response refreshed with the
    /// 304's fields, its stored body following; any other head is itself, with no body.
    func cacheView(of head: TransportResponseHead) -> (head: TransportResponseHead, storedBody: Data?) {
        guard context.urlCache != nil, usesURLCache else { return (head, nil) }
        let now = Date().timeIntervalSince1970
        let revalidating = mutable.withLock { state -> CachedURLResponse? in
            state.cache.responseTime = now
            guard head.status == 304, case .revalidating(let stored) = state.cache.use else { return nil }
            state.cache.use = .revalidated
            return stored
        }
        guard let revalidating else { return (head, nil) }
        // RFC 9111 §3.2: the 304's fields replace the stored ones, framing and hop-by-hop excepted.
        let excluded: Set<String> = ["content-length", "transfer-encoding", "connection", "keep-alive", "te", "trailer", "upgrade"]
        var merged = revalidating.response.headers
        for field in head.fields where !excluded.contains(field.name.lowercased()) && !field.name.lowercased().hasPrefix("proxy-") {
            merged.update(name: field.name, value: field.value)
        }
        var fields: [(name: String, value: String)] = []
        for field in merged { fields.append((field.name, field.value)) }
        let stored = TransportResponseHead(status: revalidating.response.statusCode, version: head.version, reason: "",
                                           fields: FieldBlock(fields), contentLength: revalidating.data.count)
        return (stored, revalidating.data)
    }

    /// What the exchange offers the cache: the response with its body, bound to the request,
    /// and the cache it goes to; `nil` when nothing is storable (not a plain data request, no
    /// cache, failed, served from the cache, or not storable under RFC 9111).
    private func cacheProposal() -> (proposed: CachedURLResponse, request: URLRequest, cache: URLCache, state: RequestCacheState)? {
        guard let cache = context.urlCache else { return nil }
        let (request, response, failed, cacheState) = mutable.withLock { ($0.inFlight, $0.response, $0.error != nil, $0.cache) }
        guard !failed, let request, let response, request.method == .get else { return nil }
        if case .serving = cacheState.use { return nil }
        // A data request's body, or the copy a stream kept (none past its limit: too large to
        // cache), offered as URLSession offers it; an upload's response is not stored.
        guard let body = bodyOfferedToCache(for: request) else { return nil }
        if !cacheState.use.isFromCache {
            // A server answers many users: a response to a request that carried credentials
            // (Authorization, or a Cookie, the storage's included) is stored only when it says
            // it may be shared (`CacheFreshness.isStorable`, RFC 9111 §3.5).
            var sent = request.headers
            if cacheState.sendsCookie, sent.value(for: "Cookie") == nil { sent.update(name: "Cookie", value: "") }
            guard CacheFreshness.isStorable(method: "GET", status: response.statusCode, requestHeaders: sent,
                                            responseHeaders: response.headers) else { return nil }
        }
        let proposed = CachedURLResponse(response: response, data: body).bound(to: request, requestTime: cacheState.requestTime,
                                                                                  responseTime: cacheState.responseTime)
        return (proposed, request, cache, cacheState)
    }

    /// Tells the session's monitors that the response is offered to the cache
    /// (`urlSession(_:dataTask:willCacheResponse:)`) for every storable response, as URLSession's
    /// delegate hears it: when the exchange ended, before its metrics and its completion.
    func reportWillCacheResponse() {
        guard isTaskMonitored(.dataTaskWillCacheResponse), let dataTask = task as? URLSessionDataTask, let proposal = cacheProposal() else { return }
        emitTaskEvent(.dataTaskWillCacheResponse) { [self] in $0.urlSession(context.urlSession, dataTask: dataTask, willCacheResponse: proposal.proposed) }
    }

    /// After the exchange: stores the response (or the refreshed one) when the cache rules and
    /// the handler allow.
    func storeInCache() {
        // Without a handler, a response whose server said nothing about caching could never be
        // served under the default policy: not kept, and decided before the proposal (a copy of
        // the body and the response) is built, so a plain GET allocates nothing here. A handler
        // is offered every storable response, as URLSession's delegate is, and decides.
        let (ownHandler, use, response) = mutable.withLock { ($0.cache.handler, $0.cache.use, $0.response) }
        let handler = ownHandler ?? context.cachedResponseHandler
        if handler == nil, !use.isFromCache {
            guard let response, CacheFreshness.isWorthStoring(response.headers) else { return }
        }
        guard let proposal = cacheProposal() else { return }
        let (proposed, request, cache, _) = proposal
        guard let handler else { return cache.storeCachedResponse(proposed, for: request) }
        let task = (self.task as? URLSessionDataTask)
            ?? URLSessionDataTask(taskIdentifier: context.urlSession.makeTaskIdentifier(), request: request, owner: self)
        handler.dataTask(task, willCacheResponse: proposed) { chosen in
            // A handler's copy keeps this exchange's times and Vary values.
            guard let chosen else { return }
            cache.storeCachedResponse(chosen.bound(to: request, requestTime: proposed.requestTime, responseTime: proposed.responseTime),
                                      for: request)
        }
    }
}

extension CacheFreshness {
    /// Whether the server said anything about caching the response: a `Cache-Control` field
    /// (`public`, `private`, `no-cache`, `max-age`… — `no-store` never gets here), `Expires`, or
    /// a validator (`ETag`, `Last-Modified`). Apple stores every storable response; Lariat
    /// skips only those whose server said nothing, which no request could reuse under the default
    /// policy, to keep the copy off every plain GET.
    static func isWorthStoring(_ headers: HTTPHeaders) -> Bool {
        headers.value(for: "Cache-Control") != nil || headers.value(for: "Expires") != nil
            || headers.value(for: "ETag") != nil || headers.value(for: "Last-Modified") != nil
    }
}
