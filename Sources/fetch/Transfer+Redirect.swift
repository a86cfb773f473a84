// `-L` for one transfer: curl's redirect rules as a Client Redirector — the hop heads kept for
// -i/-I/-D, --location-trusted's credentials, --proto-redir, Location resolved as curl resolves
// it (RedirectLocation.swift) and --post301/302/303.
import Client
import FoundationEssentials

extension Transfer {
    /// curl's redirect behaviour: none without `-L`; with it, URLSession's rules (credentials
    /// dropped for another host), or with `--location-trusted` the original Authorization and
    /// Cookie sent along wherever the redirect goes.
    /// Each redirect's head is kept in `hops`: written before the final one with `-i`, `-I` and
    /// `-D`, and counted by `%{size_header}`, as curl does. Client holds a redirect's head and
    /// body until this answers, so neither reaches the transfer's steps.
    /// With `--aws-sigv4` (`signing`), a hop that keeps the credentials is signed again.
    static func redirector(options: FetchOptions, original: URLRequest, hops: HopHeads, signing: AWSSigV4.Context? = nil) -> Redirector {
        guard options.followRedirects else { return .doNotFollow }
        let kept = options.locationTrusted
            ? ["Authorization", "Cookie"].compactMap { name in original.value(forHTTPHeaderField: name).map { (name, $0) } } : []
        let extras = options.extras
        return .modify { _, request, response in
            hops.append(headText(response))
            var request = request
            // --proto-redir: a scheme not allowed ends the transfer (curl's 1), nothing followed.
            let scheme = request.url?.scheme?.lowercased() ?? ""
            if !(extras.redirectProtocols ?? Protocols.redirectDefault).contains(scheme) || !(extras.protocols ?? Protocols.all).contains(scheme) {
                hops.refuse(scheme)
                return nil
            }
            // Location as curl resolves it (RedirectLocation.swift), not re-encoded.
            if let location = response.headers.value(for: "Location"), let base = response.url?.absoluteString,
               let resolved = URL(string: RedirectLocation.resolve(location, from: base)) {
                request.url = resolved
            }
            // --post301/302/303: the POST and its body go to the new location as they were.
            if extras.postRedirects.contains(response.statusCode), original.method == .post, request.method != .post {
                request.method = .post
                request.httpBody = original.httpBody
                if let type = original.value(forHTTPHeaderField: "Content-Type") { request.setValue(type, forHTTPHeaderField: "Content-Type") }
            }
            for (name, value) in kept where request.value(forHTTPHeaderField: name) == nil { request.setValue(value, forHTTPHeaderField: name) }
            if let signing, let url = request.url?.absoluteString, let from = original.url?.absoluteString {
                resign(&request, url: url, sameOrigin: sameOrigin(url, from) || options.locationTrusted, with: signing)
            }
            return request
        }
    }

    /// Replaces the previous hop's signature: a new one for `request` when the credentials go to
    /// this origin (curl's Curl_auth_allowed_to_host), none otherwise.
    static func resign(_ request: inout URLRequest, url: String, sameOrigin: Bool, with signing: AWSSigV4.Context) {
        for name in signing.headerNames { request.headers.remove(name: name) }
        guard sameOrigin, let fields = try? signing.headers(url: url, method: request.method?.rawValue ?? "GET") else { return }
        for field in fields { request.setValue(field.value, forHTTPHeaderField: field.name) }
    }

    /// Whether two URLs share scheme, host and port.
    static func sameOrigin(_ a: String, _ b: String) -> Bool {
        let scheme = { (url: String) in String(url.prefix { $0 != ":" }).lowercased() }
        let (hostA, portA) = TransferErrors.hostAndPort(a)
        let (hostB, portB) = TransferErrors.hostAndPort(b)
        return scheme(a) == scheme(b) && hostA.lowercased() == hostB.lowercased() && portA == portB
    }
}
