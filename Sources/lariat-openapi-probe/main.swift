// lariat-openapi-probe URL [--slow]: downloads URL through LariatTransport (the path a generated
// OpenAPI client takes), iterating the HTTPBody chunk by chunk without keeping it, and prints
// the byte count. LariatOpenAPITests runs it as a child process and samples its memory, so the
// measurement is of this download alone. `--slow` sleeps 1 ms per chunk: a consumer slower
// than the server, so the back-pressure path (stop reading the socket) is taken.
// `--upload N` POSTs N bytes instead, from an HTTPBody that makes its 64 KiB chunks as they are
// asked for (so only the transport could hold the whole body), and reads the response.
#if FullFoundation
import Foundation
#else
import FoundationEssentials
#endif
import Glibc
import HTTPTypes
import OpenAPIRuntime
import LariatOpenAPI

let arguments = CommandLine.arguments.dropFirst()
guard let target = arguments.first, let url = URL(string: target),
      var components = URLComponents(url: url, resolvingAgainstBaseURL: false) else {
    print("usage: lariat-openapi-probe URL [--slow]")
    exit(2)
}
let slow = arguments.contains("--slow")
let upload = arguments.firstIndex(of: "--upload").flatMap { arguments.index(after: $0) < arguments.endIndex ? Int(arguments[arguments.index(after: $0)]) : nil }

/// `total` bytes of 0x75, made 64 KiB at a time as they are iterated.
struct GeneratedBody: AsyncSequence, Sendable {
    let total: Int
    struct AsyncIterator: AsyncIteratorProtocol {
        var left: Int
        mutating func next() async -> ArraySlice<UInt8>? {
            guard left > 0 else { return nil }
            let n = Swift.min(left, 64 << 10)
            left -= n
            return ArraySlice(repeating: 0x75, count: n)
        }
    }
    func makeAsyncIterator() -> AsyncIterator { AsyncIterator(left: total) }
}
let path = components.percentEncodedPath
components.percentEncodedPath = ""
let request = HTTPRequest(method: upload == nil ? .get : .post, scheme: nil, authority: nil, path: path)
let requestBody = upload.map { HTTPBody(GeneratedBody(total: $0), length: .known(Int64($0)), iterationBehavior: .single) }
do {
    let (response, body) = try await LariatTransport().send(request, body: requestBody, baseURL: components.url!, operationID: "probe")
    var total = 0
    if let body {
        for try await chunk in body {
            total += chunk.count
            if slow { try await Task.sleep(for: .milliseconds(1)) }
        }
    }
    print("status \(response.status.code) bytes \(total)")
} catch {
    print("error \(error)")
    exit(1)
}
