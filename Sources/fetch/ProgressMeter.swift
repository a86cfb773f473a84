// curl's progress meter and -#/--progress-bar, on standard error, fed by Client's
// downloadProgress/uploadProgress handlers (on a private serial queue).
//
// When: unless -s or --no-progress-meter, and only when the body does not go to the terminal
// (curl switches the meter off when it writes the body to a terminal; it does not look at
// standard error). The meter (curl 7.88's lib/progress.c layout):
//
//     % Total    % Received % Xferd  Average Speed   Time    Time     Time  Current
//                                    Dload  Upload   Total   Spent    Left  Speed
//   \r100   185  100   185    0     0  16939      0 --:--:-- --:--:-- --:--:-- 18500\n
//
// a line at the start, at most one a second while bytes move, and the last one at the end.
// Sizes take five columns (`12345`, `1234k`, `12.3M`, `1234M`, `12.3G`), times `H:MM:SS` or
// `--:--:--` under a second. Current speed is the average here (curl's is over its last five
// seconds; the same figure for transfers under five seconds).
//
// The bar (curl's src/tool_cb_prg.c): `\r` + '#' × (width - 7) × fraction, padded, and the
// percentage as `%5.1f%%`; width from COLUMNS (21...9999), else the terminal's, else 79,
// at most 256. A body of unknown size shows its bar at the end only (curl animates a `-=O=-`).

import Client
import Dispatch
#if FullFoundation
import Foundation  // Client's Progress is Foundation's in this build
#else
import FoundationEssentials
#endif
import Synchronization
#if canImport(Glibc)
import Glibc
#endif

/// One transfer's meter or bar.
final class ProgressMeter: Sendable {
    /// Meter or bar.
    enum Style { case meter, bar(width: Int) }

    /// Bytes moved and expected (`-1`: unknown), and the last draw.
    struct Counts {
        var downloaded: Int64 = 0
        var downloadTotal: Int64 = -1
        var uploaded: Int64 = 0
        var uploadTotal: Int64 = -1
        var lastDrawn: Double = -1
        var lastBarText = ""
        /// The download's size was unknown at some point: it stays unknown (Client reports the
        /// count received as the total at the end, curl's meter does not).
        var downloadSizeUnknown = false
    }

    private let style: Style
    private let started = ProgressMeter.now()
    private let counts = Mutex(Counts())
    /// Where the handlers run: draws are serial.
    let queue = DispatchQueue(label: "fetch.progress")

    init(style: Style) { self.style = style }

    /// The meter `options` ask for, or `nil` (silent, disabled, or the body goes to the terminal).
    static func make(options: FetchOptions, output: FetchOptions.Output?) -> ProgressMeter? {
        if options.silent || options.noProgressMeter { return nil }
        let toStandardOutput: Bool = {
            switch output {
            case nil: true
            case .file(let path): path == "-"
            case .remoteName: false
            }
        }()
        if toStandardOutput && isatty(1) == 1 { return nil }
        return ProgressMeter(style: options.progressBar ? .bar(width: barWidth()) : .meter)
    }

    /// Draws the heading and the first line (the bar draws nothing yet).
    func start() {
        guard case .meter = style else { return }
        let heading = "  % Total    % Received % Xferd  Average Speed   Time    Time     Time  Current\n"
            + "                                 Dload  Upload   Total   Spent    Left  Speed\n"
        counts.withLock { $0.lastDrawn = 0 }
        write(heading + meterLine(Counts(), elapsed: 0))
    }

    /// Installs the handlers on `request`.
    func attach(to request: Request) {
        request.downloadProgress(queue: queue) { [self, request] progress in
            let (completed, total) = (progress.completedUnitCount, progress.totalUnitCount)
            // A body without Content-Length reports its count as the total once it ended; a
            // delivery coalesced past the end would otherwise look like a known size.
            let unknown = total < 0 || (request.response?.expectedContentLength ?? -1) < 0
            update { counts in
                counts.downloaded = completed
                if unknown { counts.downloadSizeUnknown = true }
                counts.downloadTotal = counts.downloadSizeUnknown ? -1 : total
            }
        }
        request.uploadProgress(queue: queue) { [self] progress in
            let (completed, total) = (progress.completedUnitCount, progress.totalUnitCount)
            update { $0.uploaded = completed; $0.uploadTotal = total }
        }
    }

    /// Draws the last line, with the final counts, and ends it.
    ///
    /// - Parameters:
    ///   - downloaded: The body bytes received (what the meter must end on).
    ///   - expectedLength: The response's Content-Length, `-1` when it had none.
    func finish(downloaded: Int, expectedLength: Int64) {
        queue.sync {}
        let elapsed = Self.now() - started
        let final = counts.withLock { counts -> Counts in
            counts.downloaded = max(counts.downloaded, Int64(downloaded))
            counts.downloadTotal = expectedLength
            return counts
        }
        switch style {
        case .meter:
            write(meterLine(final, elapsed: elapsed) + "\n")
        case .bar(let width):
            // Unknown sizes: curl animates while bytes move and ends with the line break alone.
            let text = expectedLength < 0 && final.uploadTotal <= 0 ? "" : barText(final, width: width)
            write((text == final.lastBarText ? "" : text) + "\n")
        }
    }

    private func update(_ change: (inout Counts) -> Void) {
        let now = Self.now() - started
        let draw = counts.withLock { counts -> Counts? in
            change(&counts)
            // The meter redraws at most once a second; the bar as often as it changes.
            if case .meter = style, now - counts.lastDrawn < 1 { return nil }
            counts.lastDrawn = now
            return counts
        }
        guard let draw else { return }
        switch style {
        case .meter: write(meterLine(draw, elapsed: now))
        case .bar(let width):
            guard draw.downloadTotal >= 0 && !draw.downloadSizeUnknown else { return }
            let text = barText(draw, width: width)
            let changed = counts.withLock { counts -> Bool in
                defer { counts.lastBarText = text }
                return counts.lastBarText != text
            }
            if changed { write(text) }
        }
    }

    // MARK: Formatting

    /// One meter line, starting with `\r`.
    func meterLine(_ counts: Counts, elapsed: Double) -> String {
        // curl: an unknown size counts as what moved so far in the total, and as 0% received.
        let downloadTotal = max(0, counts.downloadTotal), uploadTotal = max(0, counts.uploadTotal)
        let total = (counts.downloadTotal < 0 ? counts.downloaded : downloadTotal) + (counts.uploadTotal < 0 ? counts.uploaded : uploadTotal)
        func percent(_ part: Int64, _ whole: Int64) -> Int64 { whole > 0 ? min(100, part * 100 / whole) : 0 }
        let seconds = max(elapsed, 0.000_001)
        let downloadSpeed = Int64(Double(counts.downloaded) / seconds)
        let uploadSpeed = Int64(Double(counts.uploaded) / seconds)
        let speed = downloadSpeed + uploadSpeed
        var estimate: Int64 = 0
        if total > 0 && speed > 0 { estimate = total / speed }
        let spent = Int64(elapsed)
        let fields = [
            pad(String(percent(counts.downloaded + counts.uploaded, total)), 3) + " " + Self.size(total),
            pad(String(percent(counts.downloaded, downloadTotal)), 3) + " " + Self.size(counts.downloaded),
            pad(String(percent(counts.uploaded, uploadTotal)), 3) + " " + Self.size(counts.uploaded),
            Self.size(downloadSpeed),
            Self.size(uploadSpeed),
        ]
        return "\r" + fields.joined(separator: "  ") + " "
            + [Self.time(estimate), Self.time(spent), Self.time(estimate - spent), Self.size(speed)].joined(separator: " ")
    }

    /// The bar, starting with `\r`.
    func barText(_ counts: Counts, width: Int) -> String {
        let total = max(0, counts.downloadTotal) + max(0, counts.uploadTotal)
        let point = counts.downloaded + counts.uploaded
        let fraction = total > 0 ? min(1, Double(point) / Double(total)) : 1
        let barWidth = width - 7
        let filled = min(256, Int(Double(barWidth) * fraction))
        let bar = String(repeating: "#", count: filled)
        let tenths = Int((fraction * 1000).rounded())
        let percentText = pad("\(tenths / 10).\(tenths % 10)", 5) + "%"
        return "\r" + bar + String(repeating: " ", count: max(0, barWidth - filled)) + " " + percentText
    }

    /// curl's five-column size.
    static func size(_ bytes: Int64) -> String {
        let kilo: Int64 = 1024, mega = kilo * 1024, giga = mega * 1024
        let text: String
        switch bytes {
        case ..<100_000: text = String(bytes)
        case ..<(10_000 * kilo): text = "\(bytes / kilo)k"
        case ..<(100 * mega): text = "\(bytes / mega).\((bytes % mega) / (mega / 10))M"
        case ..<(10_000 * mega): text = "\(bytes / mega)M"
        case ..<(100 * giga): text = "\(bytes / giga).\((bytes % giga) / (giga / 10))G"
        default: text = "\(bytes / giga)G"
        }
        return String(repeating: " ", count: max(0, 5 - text.count)) + text
    }

    /// curl's eight-column time: `--:--:--` for none, `H:MM:SS` under 100 hours, else days.
    static func time(_ seconds: Int64) -> String {
        guard seconds > 0 else { return "--:--:--" }
        let hours = seconds / 3600, minutes = (seconds / 60) % 60, secs = seconds % 60
        func two(_ n: Int64) -> String { n < 10 ? "0\(n)" : "\(n)" }
        if hours <= 99 { return (hours < 10 ? " " : "") + "\(hours):\(two(minutes)):\(two(secs))" }
        let days = seconds / 86_400
        return days <= 999 ? pad("\(days)d \(two(hours % 24))h", 8) : pad("\(days)d", 8)
    }

    /// Width for the bar: `COLUMNS` (getenv's `char *`, copied into a String) when it is a
    /// number from 21 to 9999 (at most 256 used), else the terminal's width, else 79.
    static func barWidth(columns variable: String? = getenv("COLUMNS").map { String(cString: $0) }) -> Int {
        if let text = variable, let columns = Int(text), columns > 20, columns < 10_000 {
            return min(columns, 256)
        }
        var size = winsize()
        if ioctl(0, UInt(TIOCGWINSZ), &size) == 0, size.ws_col > 20 { return min(Int(size.ws_col), 256) }
        return 79
    }

    private func write(_ text: String) { _ = writeAll(2, Array(text.utf8)) }

    private static func now() -> Double {
        var now = timespec()
        clock_gettime(CLOCK_MONOTONIC, &now)
        return Double(now.tv_sec) + Double(now.tv_nsec) / 1e9
    }
}

/// `text` right-aligned in `width` columns.
private func pad(_ text: String, _ width: Int) -> String {
    String(repeating: " ", count: max(0, width - text.count)) + text
}
