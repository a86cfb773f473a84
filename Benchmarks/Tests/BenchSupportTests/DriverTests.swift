import Foundation
import Synchronization
import Testing

@testable import BenchSupport

/// A scripted client: counts calls, answers with a fixed status and size, tracks concurrency.
final class FakeClient: PeerClient {
    let status: Int
    let size: Int
    let calls = Atomic<Int>(0)
    let closes = Atomic<Int>(0)
    let inFlight = Atomic<Int>(0)
    let maxInFlight = Atomic<Int>(0)
    let document: BenchDocument?

    init(status: Int = 200, size: Int = 1024, document: BenchDocument? = nil) {
        self.status = status
        self.size = size
        self.document = document
    }

    func get(_ url: String, closeConnection: Bool) async throws -> Fetched {
        calls.add(1, ordering: .relaxed)
        if closeConnection { closes.add(1, ordering: .relaxed) }
        let now = inFlight.add(1, ordering: .relaxed).newValue
        _ = maxInFlight.max(now, ordering: .relaxed)
        await Task.yield()
        inFlight.subtract(1, ordering: .relaxed)
        return Fetched(status: status, bodyBytes: size)
    }

    func getJSON(_ url: String) async throws -> BenchDocument {
        calls.add(1, ordering: .relaxed)
        guard let document else { throw ValidationFailure("no document") }
        return document
    }

    func download(_ url: String, to path: String) async throws -> Fetched {
        calls.add(1, ordering: .relaxed)
        try Data(count: size).write(to: URL(fileURLWithPath: path))
        return Fetched(status: status, bodyBytes: size)
    }

    func upload(file path: String, size: Int, to url: String) async throws -> Fetched {
        calls.add(1, ordering: .relaxed)
        return Fetched(status: status, bodyBytes: 0)
    }

    func stream(_ url: String) async throws -> Fetched {
        calls.add(1, ordering: .relaxed)
        return Fetched(status: status, bodyBytes: size)
    }

    func shutdown() async throws {}
}

/// A client without a streaming API: it relies on ``PeerClient``'s default `stream(_:)`.
struct NoStreamClient: PeerClient {
    func get(_ url: String, closeConnection: Bool) async throws -> Fetched { Fetched(status: 200, bodyBytes: 0) }
    func getJSON(_ url: String) async throws -> BenchDocument { throw ValidationFailure("unused") }
    func download(_ url: String, to path: String) async throws -> Fetched { Fetched(status: 200, bodyBytes: 0) }
    func upload(file path: String, size: Int, to url: String) async throws -> Fetched { Fetched(status: 200, bodyBytes: 0) }
    func shutdown() async throws {}
}

func fixtureDocument() throws -> BenchDocument {
    // Benchmarks/Tests/BenchSupportTests/ -> repository root -> scripts/fixtures/bench.json
    let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().deletingLastPathComponent()
    let data = try Data(contentsOf: root.appendingPathComponent("scripts/fixtures/bench.json"))
    return try JSONDecoder().decode(BenchDocument.self, from: data)
}

@Suite("Workload driver")
struct DriverTests {
    func options(_ arguments: [String]) throws -> BenchOptions {
        try BenchOptions.parse(arguments)
    }

    @Test func sequentialCountsWarmupSeparately() async throws {
        let client = FakeClient()
        let result = try await runWorkload(
            client, name: "fake", options: options(["--workload", "seq", "--url", "http://h/x", "--requests", "50"]),
            tlsResumption: "off")
        #expect(client.calls.load(ordering: .relaxed) == 60)  // 10 warm-up + 50 timed
        #expect(result.requests == 50)
        #expect(result.bytes == 50 * 1024)
        #expect(result.rps != nil && result.p50Micros != nil && result.p99Micros != nil)
        #expect(result.mbps == nil)
        #expect(result.peakRSSKiB != nil)
        #expect(result.tlsResumption == nil)  // plain http
    }

    @Test func newConnectionWorkloadAsksToClose() async throws {
        let client = FakeClient()
        let result = try await runWorkload(
            client, name: "fake",
            options: options(["--workload", "https-new-conn", "--url", "https://h/x", "--requests", "5"]),
            tlsResumption: "on")
        #expect(client.closes.load(ordering: .relaxed) == 6)  // 1 warm-up + 5
        #expect(result.tlsResumption == "on")
    }

    @Test func concurrentRunsExactlyTheRequestedTotalInParallel() async throws {
        let client = FakeClient()
        let result = try await runWorkload(
            client, name: "fake",
            options: options(["--workload", "concurrent", "--url", "http://h/x", "--requests", "1000",
                              "--concurrency", "16"]),
            tlsResumption: nil)
        #expect(client.calls.load(ordering: .relaxed) == 1016)  // one warm-up wave of 16
        #expect(result.requests == 1000)
        #expect(result.bytes == 1000 * 1024)
        #expect(client.maxInFlight.load(ordering: .relaxed) <= 16)
    }

    @Test(arguments: [199, 301, 404, 500])
    func nonSuccessStatusFailsTheRun(status: Int) async throws {
        await #expect(throws: ValidationFailure.self) {
            try await runWorkload(
                FakeClient(status: status), name: "fake",
                options: options(["--workload", "seq", "--url", "http://h/x", "--requests", "1"]), tlsResumption: nil)
        }
    }

    @Test func downloadChecksTheFileOnDisk() async throws {
        let path = NSTemporaryDirectory() + "bench-driver-\(UInt32.random(in: 0...UInt32.max)).bin"
        defer { try? FileManager.default.removeItem(atPath: path) }
        let result = try await runWorkload(
            FakeClient(size: 4096), name: "fake",
            options: options(["--workload", "download-file", "--url", "http://h/x", "--out", path, "--requests", "2"]),
            tlsResumption: nil)
        #expect(result.bytes == 8192)
        #expect(result.mbps != nil && result.rps == nil)
    }

    @Test func uploadCountsTheFileSize() async throws {
        let path = NSTemporaryDirectory() + "bench-upload-\(UInt32.random(in: 0...UInt32.max)).bin"
        try Data(count: 3000).write(to: URL(fileURLWithPath: path))
        defer { try? FileManager.default.removeItem(atPath: path) }
        let result = try await runWorkload(
            FakeClient(), name: "fake",
            options: options(["--workload", "upload", "--url", "http://h/upload", "--file", path, "--requests", "3"]),
            tlsResumption: nil)
        #expect(result.bytes == 9000)
    }

    @Test func streamCountsTheChunkedBytesAsThroughput() async throws {
        let client = FakeClient(size: 5000)
        let result = try await runWorkload(
            client, name: "fake", options: options(["--workload", "stream", "--url", "http://h/100m.bin", "--requests", "2"]),
            tlsResumption: nil)
        #expect(client.calls.load(ordering: .relaxed) == 2)  // no warm-up for bulk transfers
        #expect(result.bytes == 10_000)
        #expect(result.mbps != nil && result.rps == nil && result.peakRSSKiB != nil)
    }

    @Test func streamFailsOnAnErrorStatus() async throws {
        await #expect(throws: ValidationFailure.self) {
            try await runWorkload(
                FakeClient(status: 404), name: "fake", options: options(["--workload", "stream", "--url", "http://h/x"]),
                tlsResumption: nil)
        }
    }

    @Test func streamIsUnsupportedWithoutAStreamingAPI() async throws {
        await #expect(throws: Unsupported.self) {
            try await runWorkload(
                NoStreamClient(), name: "fake", options: options(["--workload", "stream", "--url", "http://h/x"]),
                tlsResumption: nil)
        }
    }

    @Test func jsonValidatesTheDecodedDocument() async throws {
        var document = try fixtureDocument()
        #expect(document.matchesFixture)
        let json = ["--workload", "json", "--url", "http://h/doc.json", "--requests", "3"]
        let result = try await runWorkload(
            FakeClient(document: document), name: "fake", options: options(json), tlsResumption: nil)
        #expect(result.requests == 3)
        document.items.removeLast()
        #expect(!document.matchesFixture)
        let broken = document
        await #expect(throws: ValidationFailure.self) {
            try await runWorkload(FakeClient(document: broken), name: "fake", options: options(json), tlsResumption: nil)
        }
    }
}
