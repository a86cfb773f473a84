// TransportError names the codec rule behind a malformed response, typed: fetch maps
// truncated-body to curl's 18 and header-section-too-large to 27 from these members (it used to
// take the rule from the start of the error's description text).
import Testing
import Wire
@testable import Transport

@Suite("TransportError's codec rule")
struct TransportErrorTests {
    @Test("a WireError underneath gives its rule's stable name and its detail")
    func wireRule() {
        let wire = WireError(.truncatedBody, "closed after 10 of 20 body bytes", offset: 52)
        let error = TransportError(.malformedResponse, "\(wire)", underlying: wire)
        #expect(error.wireRule == "truncated-body")
        #expect(error.wireDetail == "closed after 10 of 20 body bytes")
    }

    @Test("no codec error underneath: no rule", arguments: [
        TransportError(.timedOut, "timed out"),
        TransportError(.connectionLost, "the connection was reset", underlying: TransportError(.other, "inner")),
    ])
    func noRule(_ error: TransportError) {
        #expect(error.wireRule == nil)
        #expect(error.wireDetail == nil)
    }
}
