// -Y/--speed-limit and -y/--speed-time: curl's low-speed abort (lib/speedcheck.c): a transfer
// slower than LIMIT bytes a second for TIME seconds in a row ends with 28 and curl's sentence.
// One side alone takes curl's default for the other (limit 1 byte/s, time 30 s). Checked once a
// second on the transfer's queue, so a stalled transfer (no bytes at all) is caught too.
import Dispatch

/// The low-speed check of one transfer.
///
/// `@unchecked Sendable`: its counters are touched only on the transfer's serial queue (the
/// body chunks and the timer both run there).
final class SpeedWatchdog: @unchecked Sendable {
    /// Bytes a second below which the transfer is slow.
    let limit: Int
    /// Seconds of slowness that end it.
    let seconds: Int
    private var bytesThisTick = 0
    private var lastTick = Output.monotonicSeconds()
    private var slowSince: Double?
    private var timer: (any DispatchSourceTimer)?

    /// The watchdog `options` ask for, or nil.
    static func make(_ options: FetchOptions) -> SpeedWatchdog? {
        guard options.extras.speedLimit != nil || options.extras.speedTime != nil else { return nil }
        let limit = options.extras.speedLimit ?? 1
        let seconds = options.extras.speedTime ?? 30
        guard limit > 0, seconds > 0 else { return nil }
        return SpeedWatchdog(limit: limit, seconds: seconds)
    }

    private init(limit: Int, seconds: Int) {
        self.limit = limit
        self.seconds = seconds
    }

    /// curl's message.
    var message: String { "Operation too slow. Less than \(limit) bytes/sec transferred the last \(seconds) seconds" }

    /// Starts the checks on `queue`; `tooSlow` runs there once, when the transfer is too slow.
    func start(on queue: DispatchQueue, tooSlow: @escaping @Sendable () -> Void) {
        let timer = DispatchSource.makeTimerSource(queue: queue)
        timer.schedule(deadline: .now() + 1, repeating: 1)
        timer.setEventHandler { [self] in
            if tick() {
                stop()
                tooSlow()
            }
        }
        self.timer = timer
        timer.resume()
    }

    /// Body bytes arrived (on the queue).
    func received(_ count: Int) { bytesThisTick += count }

    /// Stops the checks.
    func stop() {
        timer?.cancel()
        timer = nil
    }

    /// One check: whether the transfer has been slow for `seconds`.
    private func tick() -> Bool {
        let now = Output.monotonicSeconds()
        let speed = Double(bytesThisTick) / max(now - lastTick, 0.001)
        bytesThisTick = 0
        lastTick = now
        guard speed < Double(limit) else {
            slowSince = nil
            return false
        }
        let since = slowSince ?? now - 1
        slowSince = since
        return now - since >= Double(seconds)
    }
}
