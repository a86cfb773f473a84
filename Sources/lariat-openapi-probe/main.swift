// lariat-openapi-probe URL [--slow]: downloads URL through LariatTransport (the path a generated
// OpenAPI client takes), iterating the HTTPBody chunk by chunk without keeping it, and prints
// the byte count. LariatOpenAPITests runs it as a child process and samples its memory, so the
// measurement is of this download alone. `--slow` sleeps 1 ms per chunk: a consumer slower
// than the server, so the back-pressure path (stop reading the socket) is taken.
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
let path = components.percentEncodedPath
components.percentEncodedPath = ""
let request = HTTPRequest(method: .get, scheme: nil, authority: nil, path: path)
do {
    let (response, body) = try await LariatTransport().send(request, body: nil, baseURL: components.url!, operationID: "probe")
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
