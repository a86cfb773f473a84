import Testing

@testable import BenchSupport

@Suite("Peer command line")
struct OptionsTests {
    /// (arguments, workload, requests, concurrency, connections, warmup, resumption)
    static let valid: [([String], Workload, Int, Int, Int, Int, Bool)] = [
        // seq with every default
        (["--workload", "seq", "--url", "http://127.0.0.1:1/1k.bin"], .seq, 5_000, 1, 1, 10, true),
        // concurrent defaults to 64 in flight over 64 connections, one warm-up wave
        (["--workload", "concurrent", "--url", "http://h/x"], .concurrent, 20_000, 64, 64, 64, true),
        // explicit concurrency, connections default to it
        (["--workload", "concurrent", "--url", "http://h/x", "--concurrency", "8"], .concurrent, 20_000, 8, 8, 8, true),
        // explicit connections below concurrency
        (["--workload", "concurrent", "--url", "http://h/x", "--concurrency", "8", "--connections", "2"],
         .concurrent, 20_000, 8, 2, 8, true),
        // bulk transfers do one request and no warm-up
        (["--workload", "download-memory", "--url", "http://h/100m.bin"], .downloadMemory, 1, 1, 1, 0, true),
        (["--workload", "download-file", "--url", "http://h/x", "--out", "/tmp/x"], .downloadFile, 1, 1, 1, 0, true),
        (["--workload", "upload", "--url", "http://h/upload", "--file", "/tmp/x"], .upload, 1, 1, 1, 0, true),
        (["--workload", "stream", "--url", "http://h/100m.bin"], .stream, 1, 1, 1, 0, true),
        // https-new-conn with --no-resume and an explicit warm-up
        (["--workload", "https-new-conn", "--url", "https://h/x", "--no-resume", "--warmup", "0", "--requests", "3"],
         .httpsNewConn, 3, 1, 1, 0, false),
        (["--workload", "json", "--url", "http://h/doc.json", "--requests", "7"], .json, 7, 1, 1, 10, true),
    ]

    @Test(arguments: valid)
    func parsesValidCommandLines(
        arguments: [String], workload: Workload, requests: Int, concurrency: Int, connections: Int, warmup: Int,
        resumption: Bool
    ) throws {
        let options = try BenchOptions.parse(arguments)
        #expect(options.workload == workload)
        #expect(options.requests == requests)
        #expect(options.concurrency == concurrency)
        #expect(options.connections == connections)
        #expect(options.warmup == warmup)
        #expect(options.tlsResumption == resumption)
    }

    /// (arguments, a fragment the error message must contain)
    static let invalid: [([String], String)] = [
        ([], "--workload is required"),
        (["--workload", "seq"], "--url"),
        (["--workload", "seq", "--url", "ftp://h/x"], "--url"),
        (["--workload", "nope", "--url", "http://h/x"], "unknown workload"),
        (["--workload", "seq", "--url", "http://h/x", "--requests", "0"], "--requests"),
        (["--workload", "seq", "--url", "http://h/x", "--requests", "-3"], "--requests"),
        (["--workload", "seq", "--url", "http://h/x", "--concurrency", "x"], "--concurrency"),
        (["--workload", "seq", "--url", "http://h/x", "--warmup", "-1"], "--warmup"),
        (["--workload", "seq", "--url", "http://h/x", "--requests"], "needs a value"),
        (["--workload", "seq", "--url", "http://h/x", "--verbose"], "unknown argument"),
        (["--workload", "download-file", "--url", "http://h/x"], "--out"),
        (["--workload", "upload", "--url", "http://h/x"], "--file"),
    ]

    @Test(arguments: invalid)
    func rejectsInvalidCommandLines(arguments: [String], fragment: String) {
        #expect {
            try BenchOptions.parse(arguments)
        } throws: { error in
            (error as? UsageError)?.message.contains(fragment) == true
        }
    }
}
