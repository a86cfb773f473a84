// -Z/--parallel: a group's transfers at most `--parallel-max` at once (curl's default 50), all on
// the group's one Session and so on its one event loop, with curl 7.88's combined progress
// meter (src/tool_progress.c: one header, then a line every half second and a last one).
//
// Exit status as curl 7.88 gives it in parallel mode: the last failure in completion order (a
// later success does not clear it); `--fail-early` stops starting new transfers after a failure.
// Differences: curl 7.88 draws the combined meter even under -s; fetch honours -s (as curl 8 does).
import Client
import Synchronization
#if canImport(Glibc)
import Glibc
#endif

/// The parallel transfers of one group.
struct ParallelRun {
    let options: FetchOptions
    let session: Session
    let jobs: [TransferJob]
    let planned: [PlannedRequest?]
    let errors: [Int: TransferError]

    /// Runs every job; returns curl's status.
    func run() async -> Int32 {
        let meter = options.silent || options.noProgressMeter ? nil : ParallelMeter(total: jobs.count)
        meter?.begin()
        let limit = max(1, options.extras.parallelMax)
        var status: Int32 = 0
        var failed = false
        await withTaskGroup(of: Int32.self) { group in
            var next = 0
            var running = 0
            func startNext() {
                let index = next
                next += 1
                running += 1
                let (options, session, job, request, error) = (options, session, jobs[index], planned[index], errors[index])
                group.addTask { await Fetch.runOne(options, session, job: job, request: request, error: error, meter: meter) }
            }
            while next < jobs.count && running < limit { startNext() }
            while let result = await group.next() {
                running -= 1
                meter?.finished()
                if result != 0 { status = result; failed = true }
                if next < jobs.count && !(failed && options.extras.failEarly) { startNext() }
            }
        }
        meter?.end()
        return status
    }
}

/// curl's combined meter: Xfers, Live, bytes downloaded, speed. Updated from the transfers'
/// queues; drawn by a timer thread-free path (each update draws if half a second passed).
final class ParallelMeter: Sendable {
    private struct State {
        var downloaded: Int64 = 0
        var expected: Int64 = 0
        var expectedKnown = true
        var live = 0
        var started = 0
        var lastDraw = 0.0
    }

    private let state = Mutex(State())
    private let total: Int
    private let start = Output.monotonicSeconds()

    init(total: Int) { self.total = total }

    /// The header line (curl prints it once).
    func begin() {
        _ = writeAll(2, Array("DL% UL%  Dled  Uled  Xfers  Live Total     Current  Left    Speed\n".utf8))
    }

    /// A transfer started; `expectedLength` is its Content-Length, or -1.
    func started(expectedLength: Int64) {
        draw { state in
            state.live += 1
            state.started += 1
            if expectedLength >= 0 { state.expected += expectedLength } else { state.expectedKnown = false }
        }
    }

    /// Body bytes arrived.
    func received(_ count: Int) { draw { $0.downloaded += Int64(count) } }

    /// A transfer ended.
    func finished() { draw { state in state.live = max(0, state.live - 1) } }

    /// The last line and its newline.
    func end() { draw(final: true) { _ in } }

    private func draw(final: Bool = false, _ change: (inout State) -> Void) {
        let now = Output.monotonicSeconds()
        let line: String? = state.withLock { state in
            change(&state)
            guard final || now - state.lastDraw > 0.5 else { return nil }
            state.lastDraw = now
            return Self.line(state, total: total, elapsed: now - start, final: final)
        }
        if let line { _ = writeAll(2, Array(line.utf8)) }
    }

    private static func line(_ state: State, total: Int, elapsed: Double, final: Bool) -> String {
        let speed = elapsed > 0 ? Int64(Double(state.downloaded) / elapsed) : 0
        let percent = state.expectedKnown && state.expected > 0 ? String(state.downloaded * 100 / state.expected) : "--"
        var left = "--:--:--", totalTime = "--:--:--"
        if state.expectedKnown && state.expected > 0 && speed > 0 {
            totalTime = ProgressMeter.time(state.expected / speed)
            left = ProgressMeter.time((state.expected - state.downloaded) / speed)
        }
        func padded(_ text: String, _ width: Int, left: Bool = false) -> String {
            let fill = String(repeating: " ", count: max(0, width - text.count))
            return left ? text + fill : fill + text
        }
        return "\r" + padded(percent, 3, left: true) + " " + padded("--", 3, left: true) + " " + ProgressMeter.size(state.downloaded) + " "
            + ProgressMeter.size(0) + " " + padded(String(total), 5) + " " + padded(String(state.live), 5) + "  " + totalTime + " "
            + ProgressMeter.time(Int64(elapsed)) + " " + left + " " + ProgressMeter.size(speed) + " " + padded(final ? "\n" : "", 5)
    }
}
