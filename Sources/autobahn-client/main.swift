// The Autobahn|Testsuite client driver (scripts/autobahn/run.sh): Lariat's WebSocketRequest
// against the suite's fuzzingserver. It asks /getCaseCount, runs each selected case
// (/runCase?case=N&agent=AGENT) echoing every message back as it came (text as text, binary as
// binary), then asks /updateReports?agent=AGENT so the server writes its report.
//
// Usage: autobahn-client URL AGENT [CASES]
//   URL    the fuzzingserver, e.g. ws://127.0.0.1:9001
//   CASES  comma-separated case ids, "*" at the end of one matching any suffix
//          ("1.*,12.1.*,9.1.1"); every case when absent.
// Messages up to 64 MiB are accepted (section 9 sends up to 16 MiB); permessage-deflate is
// offered (Lariat's default), as sections 12 and 13 need. A test tool: no product ships it.

import Client
import Dispatch
import FoundationEssentials
#if FullFoundation
import Foundation
#endif
#if canImport(Glibc)
import Glibc
#endif

/// The largest message the driver accepts: the suite's largest (16 MiB, 9.1.6 and 9.2.6) with room.
let maximumMessageSize = 64 << 20

/// Whether the case id `id` is selected by one of `patterns`.
func selected(_ id: String, by patterns: [String]) -> Bool {
    patterns.contains { pattern in
        if pattern == "*" { return true }
        if pattern.hasSuffix("*") { return id.hasPrefix(String(pattern.dropLast())) }
        return id == pattern
    }
}

/// Opens `url`, echoes every message until the connection ends, and returns the text messages
/// received (the control requests answer with one).
func run(_ session: Session, _ url: String, echo: Bool) async -> [String] {
    guard let target = URL(string: url) else {
        FileHandleOutput.error("autobahn-client: bad URL \(url)")
        return []
    }
    let webSocket = session.webSocketRequest(
        performing: URLRequest(url: target), configuration: .maximumMessageSize(maximumMessageSize))
    let queue = DispatchQueue(label: "org.lariat.autobahn-client")
    return await withCheckedContinuation { (done: CheckedContinuation<[String], Never>) in
        nonisolated(unsafe) var texts: [String] = []  // touched only on `queue`, serially
        webSocket.streamMessageEvents(on: queue) { event in
            switch event.kind {
            case .receivedMessage(let message):
                if echo {
                    webSocket.send(message, queue: queue) { _ in }
                } else if case .string(let text) = message {
                    texts.append(text)
                }
            case .completed:
                done.resume(returning: texts)
            default:
                break
            }
        }
    }
}

/// What /getCaseInfo answers, as far as the driver needs it.
struct CaseInfo: Decodable {
    /// The case's id, such as "12.1.3".
    let id: String
}

/// Standard error output.
enum FileHandleOutput {
    static func error(_ line: String) {
        let text = line + "\n"
        _ = text.withCString { write(2, $0, strlen($0)) }
    }
}

let arguments = CommandLine.arguments
guard arguments.count >= 3 else {
    FileHandleOutput.error("usage: autobahn-client URL AGENT [CASES]")
    exit(2)
}
let server = arguments[1]
let agent = arguments[2]
let patterns = arguments.count > 3 ? arguments[3].split(separator: ",").map(String.init) : ["*"]
let session = Session()

guard let countText = await run(session, "\(server)/getCaseCount", echo: false).first,
      let count = Int(countText) else {
    FileHandleOutput.error("autobahn-client: no case count from \(server)")
    exit(1)
}
var ran = 0
for number in 1...count {
    // /getCaseInfo answers {"id": "1.1.1", "description": …}; only the id is needed.
    let info = await run(session, "\(server)/getCaseInfo?case=\(number)", echo: false).first ?? ""
    let id = (try? JSONDecoder().decode(CaseInfo.self, from: Data(info.utf8)))?.id ?? ""
    guard selected(id, by: patterns) else { continue }
    _ = await run(session, "\(server)/runCase?case=\(number)&agent=\(agent)", echo: true)
    ran += 1
}
_ = await run(session, "\(server)/updateReports?agent=\(agent)", echo: false)
FileHandleOutput.error("autobahn-client: ran \(ran) of \(count) cases")

