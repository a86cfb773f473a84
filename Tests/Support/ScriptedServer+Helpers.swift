// Helpers of the suites that run ScriptedServer: a canned response, and elapsed time for the
// timeout rows.

/// A canned response with a Content-Length body.
package func cannedResponse(_ body: String = "ok", status: String = "200 OK", extra: String = "") -> ScriptedServer.Step {
    .send("HTTP/1.1 \(status)\r\nContent-Length: \(body.utf8.count)\r\n\(extra)\r\n\(body)")
}

/// Milliseconds elapsed since `start`.
package func milliseconds(since start: ContinuousClock.Instant) -> Int64 {
    let elapsed = ContinuousClock.now - start
    return elapsed.components.seconds * 1000 + elapsed.components.attoseconds / 1_000_000_000_000_000
}
