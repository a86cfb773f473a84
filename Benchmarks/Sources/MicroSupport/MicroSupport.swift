// Shared by the micro benchmark suites (Benchmarks/Benchmarks/*): the metric set, the CI
// tolerance on allocations, and retain/release counting around the measured region.
public import Benchmark
internal import CARCCounter

/// The metrics every micro benchmark reports.
public enum MicroMetrics {
    /// Swift retains in the measured region, counted by `CARCCounter` (package-benchmark's
    /// `.retainCount` crashes on Swift 6.3 for Linux; see `arc_counter.h`).
    public static var retains: BenchmarkMetric {
        .custom("retains", polarity: .prefersSmaller, useScalingFactor: true)
    }

    /// Swift releases in the measured region, counted like ``retains``.
    public static var releases: BenchmarkMetric {
        .custom("releases", polarity: .prefersSmaller, useScalingFactor: true)
    }

    /// Wall clock, throughput, mallocs, retains and releases.
    ///
    /// Not `.instructions`: here (no `perf_event_open` for us) it reports nothing and its
    /// sampling added 16 mallocs to every measured iteration. Names must not contain spaces or
    /// `/`: package-benchmark 1.38.1 writes thresholds under a name with them replaced by `_` but
    /// looks them up under the raw name, so such a benchmark is never checked.
    public static var all: [BenchmarkMetric] {
        [.wallClock, .throughput, .mallocCountTotal, retains, releases]
    }

    /// What `check-allocations.sh` gates on: mallocs, within `allowedExtraMallocs` of the stored
    /// p90 (in raw per-iteration counts), and nothing else.
    ///
    /// - Parameter allowedExtraMallocs: Tolerance above or below the stored threshold; 0 (exact)
    ///   by default. Improvements beyond it are reported too, so the threshold gets tightened.
    /// - Returns: Thresholds for ``Benchmark/Configuration``.
    public static func mallocGate(allowedExtraMallocs: Int = 0) -> [BenchmarkMetric: BenchmarkThresholds] {
        [.mallocCountTotal: .init(absolute: [.p90: allowedExtraMallocs])]
    }
}

extension Benchmark {
    /// Runs `body` as the measured region (`startMeasurement`/`stopMeasurement`) and records the
    /// retains and releases it made, on any thread, as ``MicroMetrics/retains`` and ``MicroMetrics/releases``.
    public func measureWithARC<Result>(_ body: () throws -> Result) rethrows -> Result {
        let (retains, releases) = (lariat_arc_retains(), lariat_arc_releases())
        startMeasurement()
        lariat_arc_counting(true)  // inside start/stop, so the harness's own ARC is not counted
        let result = try body()
        lariat_arc_counting(false)
        stopMeasurement()
        measurement(MicroMetrics.retains, Int(lariat_arc_retains() - retains))
        measurement(MicroMetrics.releases, Int(lariat_arc_releases() - releases))
        return result
    }

    /// The `async` form of ``measureWithARC(_:)-(()->Result)``.
    public func measureWithARC<Result>(_ body: () async throws -> Result) async rethrows -> Result {
        let (retains, releases) = (lariat_arc_retains(), lariat_arc_releases())
        startMeasurement()
        lariat_arc_counting(true)  // inside start/stop, so the harness's own ARC is not counted
        let result = try await body()
        lariat_arc_counting(false)
        stopMeasurement()
        measurement(MicroMetrics.retains, Int(lariat_arc_retains() - retains))
        measurement(MicroMetrics.releases, Int(lariat_arc_releases() - releases))
        return result
    }
}
