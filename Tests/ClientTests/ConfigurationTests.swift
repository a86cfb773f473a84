#if FullFoundation
import Foundation
#else
import FoundationEssentials
#endif
import Testing
@testable import Client

private let url = URL(string: "https://example.com/files/report.pdf?x=1")!

@Suite("URLSessionConfiguration and metrics")
struct ConfigurationTests {
    @Test("defaults")
    func defaults() {
        let configuration = URLSessionConfiguration.default
        #expect(configuration.timeoutIntervalForRequest == 60)
        #expect(configuration.timeoutIntervalForResource == 604_800)
        #expect(configuration.httpMaximumConnectionsPerHost == 6)
        #expect(!configuration.httpShouldUsePipelining)
        #expect(configuration.httpAdditionalHeaders == nil)
        #expect(configuration.headers.isEmpty)
        #expect(configuration.requestCachePolicy == .useProtocolCachePolicy)
    }

    @Test("each access to .default is a new instance; changes are kept per instance")
    func independentInstances() {
        let first = URLSessionConfiguration.default
        first.timeoutIntervalForRequest = 5
        #expect(URLSessionConfiguration.default.timeoutIntervalForRequest == 60)
        let copy = first.copy()
        first.timeoutIntervalForRequest = 7
        #expect(copy.timeoutIntervalForRequest == 5)
        #expect(first.settings.timeoutIntervalForRequest == 7)
    }

    @Test("af.default carries HTTPHeaders.default")
    func afDefault() {
        #expect(URLSessionConfiguration.af.default.headers == HTTPHeaders.default.sorted())
        #expect(URLSessionConfiguration.af.ephemeral.headers["User-Agent"] == HTTPHeader.defaultUserAgent.value)
    }

    @Test("httpAdditionalHeaders converts values to strings and drops non-string keys")
    func additionalHeaders() {
        let configuration = URLSessionConfiguration.ephemeral
        configuration.httpAdditionalHeaders = ["X-Int": 5, "X-String": "s", 7: "dropped"]
        #expect(configuration.httpAdditionalHeaders?["X-Int"] as? String == "5")
        #expect(configuration.headers.map(\.name) == ["X-Int", "X-String"])
    }

    @Test("metrics keep what the transport reports")
    func metrics() {
        let request = URLRequest(url: url)
        let transaction = URLSessionTaskTransactionMetrics(
            request: request, isReusedConnection: true, countOfRequestBodyBytesSent: 10, countOfResponseBodyBytesReceived: 20,
            remoteAddress: "127.0.0.1", remotePort: 8080, negotiatedTLSProtocolVersion: .TLSv13
        )
        let metrics = URLSessionTaskMetrics(taskInterval: DateInterval(start: Date(), duration: 1), redirectCount: 1, transactionMetrics: [transaction])
        #expect(metrics.transactionMetrics.first?.networkProtocolName == "http/1.1")
        #expect(transaction.countOfRequestBodyBytesBeforeEncoding == 10)
        #expect(transaction.countOfResponseBodyBytesAfterDecoding == 20)
        #expect(transaction.negotiatedTLSProtocolVersion?.rawValue == 0x0304)
        #expect(transaction.resourceFetchType == .networkLoad)
        #expect(!transaction.isProxyConnection && transaction.isReusedConnection)
        #expect(metrics.description.contains("redirects: 1"))
    }
}
