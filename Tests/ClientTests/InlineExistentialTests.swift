// Values that Lariat's request methods pass as existentials by default must fit an
// existential's inline buffer (three words): a larger one is boxed, an allocation per request
// (`Session.request`'s default `encoding: URLEncoding.default` was one).
import Testing
@testable import Client

@Suite("Existentials kept inline")
struct InlineExistentialTests {
    @Test("URLEncoding fits an existential's inline buffer", arguments: [
        URLEncoding.default, .queryString, .httpBody,
        URLEncoding(destination: .httpBody, arrayEncoding: .custom { key, _ in key }, boolEncoding: .literal),
    ])
    func urlEncodingInline(encoding: URLEncoding) {
        #expect(MemoryLayout.size(ofValue: encoding) <= 3 * MemoryLayout<Int>.size)
        // The reordered fields keep their values.
        let boxed: any ParameterEncoding = encoding
        let back = boxed as? URLEncoding
        #expect(back?.destination == encoding.destination && back?.boolEncoding == encoding.boolEncoding)
    }
}
