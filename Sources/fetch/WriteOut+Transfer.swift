// -w's timing, size and connection variables from the transfer's URLSessionTaskMetrics, measured
// as curl measures them: each time from the start of the transfer to the end of its phase,
// cumulative, so time_namelookup <= time_connect <= time_appconnect <= time_pretransfer <=
// time_starttransfer <= time_total. A phase that did not happen takes the previous one's value
// (a reused connection: resolved and connected "at once"), except time_appconnect, 0 without TLS.

import Client
import FoundationEssentials

extension WriteOut.Values {
    /// Fills the variables that come from metrics and the response head.
    ///
    /// - Parameters:
    ///   - metrics: The transfer's metrics (`nil`: nothing got that far).
    ///   - response: The last response head.
    ///   - started: When the transfer started; times are measured from it.
    mutating func add(metrics: URLSessionTaskMetrics?, response: HTTPURLResponse?, started: Date?) {
        if let response {
            headers = response.headers.map { WriteOut.Header(name: $0.name, value: $0.value) }
            // curl 7.88 reports an HTTP/0.9 answer (--http0.9) as version 0, as no response.
            httpVersion = Transfer.isHTTP09(response) ? "0" : String(response.httpVersion.dropFirst("HTTP/".count))
        }
        guard let metrics, let last = metrics.transactionMetrics.last else { return }
        let transactions = metrics.transactionMetrics
        let base = started ?? transactions.first?.fetchStartDate ?? metrics.taskInterval.start
        func since(_ date: Date?) -> Double? { date.map { max(0, $0.timeIntervalSince(base)) } }

        // The last transaction's phases; earlier ones (redirect hops) count as time_redirect.
        let redirectEnd = transactions.count > 1 ? since(last.fetchStartDate) ?? 0 : 0
        timeRedirect = redirectEnd
        let fetchStart = since(last.fetchStartDate) ?? redirectEnd
        timeNamelookup = since(last.domainLookupEndDate) ?? since(last.connectStartDate) ?? fetchStart
        // With TLS the TCP connection is up when the handshake starts; connectEnd includes TLS.
        timeConnect = max(timeNamelookup, since(last.secureConnectionStartDate) ?? since(last.connectEndDate) ?? timeNamelookup)
        timeAppconnect = last.negotiatedTLSProtocolVersion == nil ? 0 : max(timeConnect, since(last.secureConnectionEndDate) ?? timeConnect)
        timePretransfer = max(timeConnect, timeAppconnect, since(last.requestStartDate) ?? timeConnect)
        timeStarttransfer = max(timePretransfer, since(last.responseStartDate) ?? timePretransfer)

        sizeUpload = transactions.reduce(0) { $0 + Int($1.countOfRequestBodyBytesSent) }
        sizeRequest = transactions.reduce(0) { $0 + Int($1.countOfRequestHeaderBytesSent + $1.countOfRequestBodyBytesSent) }
        remoteIP = last.remoteAddress ?? ""
        remotePort = last.remotePort ?? 0
        localIP = last.localAddress ?? ""
        localPort = last.localPort ?? 0
        numConnects = transactions.filter { !$0.isReusedConnection && $0.connectStartDate != nil }.count
        numRedirects = metrics.redirectCount
    }
}
