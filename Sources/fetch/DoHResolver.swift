// `--doh-url URL`, `--doh-insecure`, `--doh-cert-status`: host names resolved over DNS over HTTPS
// (RFC 8484) as curl 7.88 does it, on Lariat's own transport over HTTP/1.1: an A and (unless -4)
// an AAAA query, each a POST of `application/dns-message` to the DoH URL (https only, as a curl
// release build allows; `https://` assumed without a scheme); each answer at most 3000 bytes
// (curl's DYN_DOH_RESPONSE) and read by DNSMessage; the host resolves when either answer reads.
// The DoH server's TLS takes `--cacert`, `--capath` and `--crlfile` from the transfer, as curl's
// DoH handles inherit them, but verification follows `--doh-insecure` only (never `-k`) and the
// stapled-OCSP requirement `--doh-cert-status` only. `--resolve` applies to the DoH server's name.
// IP literals and `localhost` (and `*.localhost`) are never asked, as in curl. A name that does
// not resolve fails its transfer with curl's 6 "Couldn't resolve host name".
// Differences kept: names are resolved before the transfers start, so a redirect to another host
// uses the system resolver; no DoH with a proxy; an answer with CNAMEs and no address is 6 (curl
// 7.88 says 27 "Out of memory").
import Client
import EventLoop
import FoundationEssentials
#if canImport(Glibc)
import Glibc
#endif
import TLS
import Transport

/// DoH lookups for one group of transfers.
struct DoHResolver {
    /// The DoH URL (https).
    var url: String
    /// `--doh-insecure`.
    var insecure: Bool
    /// `--doh-cert-status`.
    var requiresCertificateStatus: Bool
    /// Whether to ask for AAAA too (not with `-4`).
    var asksIPv6: Bool

    /// curl's DYN_DOH_RESPONSE: the most bytes one answer may have.
    static let maxResponse = 3000

    /// The resolver for `options`, or nil without `--doh-url` (or with an empty one).
    init?(_ options: FetchOptions) {
        guard let raw = options.extras.dohURL, !raw.isEmpty else { return nil }
        url = raw.firstOccurrence(of: "://") == nil ? "https://" + raw : raw
        insecure = options.extras.dohInsecure
        requiresCertificateStatus = options.extras.dohCertStatus
        asksIPv6 = options.ipVersion != .v4
    }

    /// Whether `host` is resolved over DoH at all (not an IP literal, not localhost).
    static func asks(_ host: String) -> Bool {
        let lowered = host.lowercased()
        if lowered == "localhost" || lowered.hasSuffix(".localhost") || lowered.isEmpty { return false }
        if host.hasPrefix("[") || host.firstIndex(of: ":") != nil { return false }
        var address = in_addr()
        return inet_pton(AF_INET, host, &address) != 1
    }

    /// The session the DoH requests go through: TLS as described above, the transfer's
    /// `--resolve` entries, no default headers.
    func session(_ options: FetchOptions) throws(FetchSetupError) -> Session {
        let configuration = URLSessionConfiguration.default
        configuration.headers = HTTPHeaders()
        configuration.urlCredentialStorage = nil
        if let maxTime = options.maxTime {
            configuration.timeoutIntervalForResource = maxTime
            configuration.timeoutIntervalForRequest = maxTime
        }
        if let connectTimeout = options.connectTimeout { configuration.timeoutIntervalForConnect = connectTimeout }
        var inherited = FetchOptions()
        inherited.caCertificateFile = options.caCertificateFile
        inherited.caCertificateDirectory = options.caCertificateDirectory
        inherited.crlFile = options.crlFile
        inherited.insecure = insecure
        inherited.requireCertificateStatus = requiresCertificateStatus
        inherited.resolveEntries = options.resolveEntries
        let tls = try inherited.tlsConfiguration()
        // curl's DoH handles follow no redirect: a 3xx body is read as the answer (and fails).
        return Session(configuration: configuration, redirectHandler: Redirector.doNotFollow, tlsConfiguration: tls,
                       eventLoopGroup: EventLoopGroup(numberOfThreads: 1), resolver: try inherited.hostResolver())
    }

    /// The addresses of each of `hosts` (A answers first), or nil for a host that did not resolve.
    func resolve(_ hosts: Set<String>, with session: Session) async -> [String: [String]?] {
        var results: [String: [String]?] = [:]
        for host in hosts.sorted() {
            results[host] = await resolve(host, with: session)
        }
        return results
    }

    /// `host`'s addresses, nil when neither answer reads.
    func resolve(_ host: String, with session: Session) async -> [String]? {
        async let v4 = answer(host, .a, session)
        async let v6 = asksIPv6 ? answer(host, .aaaa, session) : nil
        let (a, aaaa) = await (v4, v6)
        guard a != nil || aaaa != nil else { return nil }
        var combined = DNSAnswer()
        for message in [a, aaaa].compactMap({ $0 }) {
            combined.addresses += message.addresses.prefix(DNSMessage.maxAddresses - combined.addresses.count)
        }
        return combined.addresses.isEmpty ? nil : combined.addresses
    }

    /// One query's answer, nil when it failed (transport, size or DNSMessage's reading).
    func answer(_ host: String, _ type: DNSMessage.RecordType, _ session: Session) async -> DNSAnswer? {
        guard url.lowercased().hasPrefix("https://"), let query = try? DNSMessage.query(host: host, type: type),
              let target = URL(string: url) else { return nil }
        var request = URLRequest(url: target)
        request.method = .post
        request.setValue("*/*", forHTTPHeaderField: "Accept")
        request.setValue("application/dns-message", forHTTPHeaderField: "Content-Type")
        request.httpBody = Data(query)
        guard let body = await Self.body(session.streamRequest(request).streamTask()) else { return nil }
        var answer = DNSAnswer()
        do { try DNSMessage.read(body, type: type, into: &answer) } catch { return nil }
        return answer
    }

    /// The response body, nil on a transport failure or past ``maxResponse`` bytes (the request
    /// is cancelled then).
    static func body(_ task: DataStreamTask) async -> [UInt8]? {
        var body: [UInt8] = []
        for await stream in task.streamingData() {
            switch stream.event {
            case .stream(.success(let data)):
                body += data
                if body.count > maxResponse { return nil }  // leaving the loop cancels the request
            case .complete(let completion):
                return completion.error == nil ? body : nil
            }
        }
        return body
    }
}
