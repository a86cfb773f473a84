// Request.underlyingQueue is made on first use for data requests (issue 9: three allocations per
// request saved), and is then the same serial queue on every read.
import Dispatch
import Testing
@testable import Client

@Suite("Underlying queue")
struct UnderlyingQueueTests {
    @Test("a data request's queue is made once, with its label, on first read")
    func madeOnce() {
        let session = Session(startRequestsImmediately: false)
        let request = session.request("http://127.0.0.1:9/")
        let first = request.underlyingQueue
        #expect(first === request.underlyingQueue)
        #expect(first.label == "org.lariat.request")
        #expect(session.request("http://127.0.0.1:9/").underlyingQueue !== first, "one queue per request")
    }
}
