import Testing

@testable import BenchSupport

@Suite("Latencies, RSS and the result line")
struct MeasureTests {
    /// (samples in ns, percentile, expected µs) — nearest rank: ceil(p/100 * n)-th smallest.
    static let percentiles: [([UInt64], Double, Double)] = [
        ([1_000], 50, 1),
        ([1_000], 99, 1),
        ([4_000, 1_000, 3_000, 2_000], 50, 2),      // rank 2 of 4
        ([4_000, 1_000, 3_000, 2_000], 75, 3),      // rank 3
        ([4_000, 1_000, 3_000, 2_000], 99, 4),      // rank 4
        ((1...100).map { UInt64($0) * 1_000 }, 99, 99),
        ((1...100).map { UInt64($0) * 1_000 }, 50, 50),
        ((1...1_000).map { UInt64($0) * 1_000 }, 99, 990),
    ]

    @Test(arguments: percentiles)
    func nearestRankPercentile(samples: [UInt64], percentile: Double, expected: Double) {
        var recorder = LatencyRecorder(capacity: samples.count)
        for sample in samples { recorder.record(sample) }
        #expect(recorder.percentilesMicros([percentile]) == [expected])
    }

    @Test func mergeKeepsEverySample() {
        var a = LatencyRecorder(capacity: 2)
        var b = LatencyRecorder(capacity: 2)
        a.record(1_000)
        b.record(3_000)
        b.record(2_000)
        a.merge(b)
        #expect(a.count == 3)
        #expect(a.percentilesMicros([50, 100]) == [2, 3])
    }

    @Test func emptyRecorderHasNoPercentiles() {
        #expect(LatencyRecorder(capacity: 0).percentilesMicros([50]).isEmpty)
    }

    @Test func peakRSSIsReadFromProc() throws {
        let kib = try #require(peakResidentKiB())
        #expect(kib > 1_000)  // a Swift test process is several MiB
    }

    @Test func monotonicClockAdvances() {
        let a = monotonicNanos()
        let b = monotonicNanos()
        #expect(b >= a)
    }

    @Test func resultLineOmitsFieldsThatDoNotApply() {
        var result = BenchResult(client: "x", workload: .downloadMemory, requests: 1, bytes: 1_048_576, seconds: 0.5)
        result.mbps = 2.097152
        result.peakRSSKiB = 1234
        #expect(
            result.jsonLine
                == #"{"client":"x","workload":"download-memory","mbps":2.097,"peak_rss_kib":1234,"requests":1,"bytes":1048576,"seconds":0.5}"#
        )
    }

    @Test func resultLineHasLatencyAndResumption() {
        var result = BenchResult(client: "a\"b", workload: .httpsNewConn, requests: 10, bytes: 0, seconds: 2)
        result.rps = 5
        result.p50Micros = 100.25
        result.p99Micros = .infinity
        result.tlsResumption = "off"
        #expect(
            result.jsonLine
                == #"{"client":"a\"b","workload":"https-new-conn","rps":5,"p50_us":100.25,"p99_us":0,"requests":10,"bytes":0,"seconds":2,"tls_resumption":"off"}"#
        )
    }
}
