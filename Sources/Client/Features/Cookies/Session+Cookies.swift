#if FullFoundation
import Foundation
#else
import FoundationEssentials
#endif
import Transport
import Wire

// The two hooks that put cookies on the request path, both per exchange so that each redirect
// hop sends the cookies for its own URL and stores what its response sets:
// - `Session.transportRequest` asks `cookieFieldValue(for:url:)` for the `Cookie` field;
// - the cookie stage of `ExchangeReceiver` (`Request.storeCookies(from:)`) hands every response
//   head to `storeCookies(from:for:request:)`.
// Both hooks read the URL of the exchange in flight. The stage takes it from the request's
// in-flight URLRequest: a follow-up records the hop as that request before sending it
// (`Request.startFollowUp`), so each hop's cookies are stored for its own URL
// (CookieSessionTests.setCookieOnFollowedRedirect).
// A `Cookie` field the user set on the URLRequest is sent as is on every hop (URLSession's rule
// for explicit fields); dropping it on a cross-origin hop is the redirect code's decision.

extension URLSessionConfiguration.Settings {
    /// Whether cookies apply to `request` at all: the configuration allows them, it has a
    /// storage, and the request did not opt out.
    private func cookieStorage(for request: URLRequest) -> HTTPCookieStorage? {
        guard httpShouldSetCookies, request.httpShouldHandleCookies else { return nil }
        return httpCookieStorage
    }

    /// The `Cookie` field to send with `request` to `url`, or `nil`: no storage, no matching
    /// cookie, or the request sets its own `Cookie` field (kept untouched, as URLSession does).
    ///
    /// - Parameters:
    ///   - request: The request being sent.
    ///   - url: Its URL.
    /// - Returns: The field's value: text, or the bytes the cookies were set with when some are
    ///   not UTF-8 (sent back as received).
    func cookieFieldValue(for request: URLRequest, url: URL) -> CookieFieldValue? {
        guard let storage = cookieStorage(for: request), !storage.isEmpty, request.headers.value(for: "Cookie") == nil else { return nil }
        return storage.cookieField(for: url)
    }

    /// Stores the cookies a response head sets, by RFC 6265's rules for `url` and the
    /// configuration's accept policy. Each `Set-Cookie` field is parsed alone (no comma
    /// splitting is needed on the wire). Costs one pass over the field names when there are none.
    ///
    /// - Parameters:
    ///   - fields: The response head's fields, in order; values are parsed from their bytes, so a
    ///     cookie keeps the bytes it was set with.
    ///   - url: The URL the response answered.
    ///   - request: The request, for its cookie opt-out and main document URL.
    func storeCookies(from fields: FieldBlock, for url: URL, request: URLRequest) {
        guard let storage = cookieStorage(for: request) else { return }
        var cookies: [HTTPCookie] = []
        let now = Date()
        for field in fields where field.hasName("set-cookie") {
            if case .success(let cookie) = SetCookieParser.parse(bytes: field.valueBytes, for: url, now: now) { cookies.append(cookie) }
        }
        guard !cookies.isEmpty else { return }
        storage.store(cookies, for: url, mainDocumentURL: request.mainDocumentURL, policy: httpCookieAcceptPolicy)
    }
}

extension Request {
    /// The cookie stage of `ExchangeReceiver`: stores what `head` sets, for the URL of the
    /// exchange in flight (a redirect's head included, so its cookies reach the next hop).
    func storeCookies(from head: TransportResponseHead) {
        guard let urlRequest = inFlightRequest, let url = urlRequest.url else { return }
        context.settings.storeCookies(from: head.fields, for: url, request: urlRequest)
    }
}
