// --trace FILE, --trace-ascii FILE and --trace-time: curl's debug dump of what went out and came
// in, written when a transfer ends (as fetch's -v is), in curl 7.88's order and layout
// (TraceDump.swift):
//
//   == Info:   Trying 127.0.0.1:8080...           the -v lines, as Info
//   => Send header, 78 bytes (0x4e)               the request head as written
//   => Send data, 3 bytes (0x3)                   the request body (from memory or its file)
//   <= Recv header, 17 bytes (0x11)               one section per response head line
//   <= Recv data, 185 bytes (0xb9)                one section per body read, as received
//   == Info: Connection #0 to host h left intact
//
// FILE `-` is standard output, `%` standard error; a FILE that cannot be opened sends the trace
// to standard error (curl's fallback). Every transfer of the run appends to the same place.
// The body's reads are spooled to an unlinked temporary file (mkstemp, mode 0600) while the
// transfer runs, so a trace of a large download costs no memory and keeps curl's section order.
//
// Differences from curl, by design: sections are written when the transfer ends rather than as
// bytes move; a response head line is shown as Lariat decoded it (obs-text as UTF-8, else
// ISO-8859-1) and received data after transfer decoding (curl shows chunk framing); redirect
// hops show their heads only; TLS handshake records ("SSL data") are not dumped.

import Client
import FoundationEssentials
import Synchronization
import Transport
#if canImport(Glibc)
import Glibc
#endif

/// Where the run's trace goes, and how.
final class TraceSink: Sendable {
    /// Hex or text.
    let style: TraceDump.Style
    /// `--trace-time`.
    let times: Bool
    /// The descriptor written (1, 2 or the opened file), under a lock: `-Z` transfers end concurrently.
    private let fd: Mutex<Int32>

    /// Opens `path` (`-` standard output, `%` standard error) for the run's trace.
    init(path: String, style: TraceDump.Style, times: Bool) {
        self.style = style
        self.times = times
        switch path {
        case "-": fd = Mutex(1)
        case "%": fd = Mutex(2)
        default:
            let opened = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o644)
            fd = Mutex(opened >= 0 ? opened : 2)
        }
    }

    /// Runs `body` with a writer to the trace, under the lock, so one transfer's sections are
    /// never interleaved with another's.
    func writing(_ body: (_ emit: (String) -> Void) -> Void) {
        fd.withLock { descriptor in
            body { text in _ = writeAll(descriptor, Array(text.utf8)) }
        }
    }

    /// A section's or Info line's prefix: the time with `--trace-time`, else nothing.
    func stamp(_ date: Date?) -> String {
        guard times else { return "" }
        return TraceDump.timestamp(secondsSince1970: (date ?? Date()).timeIntervalSince1970)
    }
}

/// One transfer's received data, kept for its trace until the transfer ends.
///
/// `@unchecked Sendable`: `received` runs on the transfer's serial queue and `dump` after the
/// completion, which the transfer's awaited continuation orders after the queue's work.
final class TraceRecorder: @unchecked Sendable {
    /// Each read's size and arrival time, in order.
    private var reads: [(count: Int, at: Date)] = []
    /// The unlinked spool file holding the reads' bytes, once one arrived (-1: none, or failed).
    private var spool: Int32 = -1

    deinit { if spool >= 0 { close(spool) } }

    /// Records one read of the body.
    func received(_ data: Data) {
        guard !data.isEmpty else { return }
        if spool < 0 && reads.isEmpty { spool = Self.makeSpool() }
        guard spool >= 0, writeAll(spool, data) else { return }
        reads.append((data.count, Date()))
    }

    /// Emits the reads' sections, read back from the spool one at a time.
    func emitDataSections(_ sink: TraceSink, _ emit: (String) -> Void) {
        guard spool >= 0 else { return }
        var offset: off_t = 0
        for read in reads {
            var bytes = [UInt8](repeating: 0, count: read.count)
            let got = bytes.withUnsafeMutableBytes { pread(spool, $0.baseAddress, read.count, offset) }
            guard got == read.count else { return }
            offset += off_t(read.count)
            emit(sink.stamp(read.at) + TraceDump.section("<= Recv data", bytes, style: sink.style))
        }
    }

    /// An anonymous temporary file: created exclusively with a random name, then unlinked.
    private static func makeSpool() -> Int32 {
        let directory = ProcessInfo.processInfo.environment["TMPDIR"].flatMap { $0.isEmpty ? nil : $0 } ?? "/tmp"
        var template = Array((directory + "/fetch-trace-XXXXXX").utf8CString)
        let fd = template.withUnsafeMutableBufferPointer { mkstemp($0.baseAddress!) }
        guard fd >= 0 else { return -1 }
        _ = fcntl(fd, F_SETFD, FD_CLOEXEC)
        template.withUnsafeBufferPointer { _ = unlink($0.baseAddress!) }
        return fd
    }
}

extension TraceSink {
    /// The run's sinks by path: every transfer (and `--next` group) tracing to one path shares
    /// one opened file, as curl's one trace stream.
    private static let opened = Mutex<[String: TraceSink]>([:])

    /// The sink `options` trace to, opened on first use; nil without --trace/--trace-ascii.
    static func of(_ options: FetchOptions) -> TraceSink? {
        guard let path = options.traceFile else { return nil }
        return opened.withLock { sinks in
            if let sink = sinks[path] { return sink }
            let sink = TraceSink(path: path, style: options.traceStyle, times: options.traceTime)
            sinks[path] = sink
            return sink
        }
    }

    /// The whole trace of one finished transfer.
    ///
    /// - Parameters:
    ///   - session: The session that sent it (for each head as written).
    ///   - response: The transfer's outcome.
    ///   - requestBody: The body sent, from memory or a file.
    ///   - uploadBody: An upload's file or stream body (it decides the framing fields shown).
    ///   - recorder: The body reads received.
    ///   - failure: The transfer's error message, empty on success.
    func report(
        session: Session, response: AFDataResponse<Data>, requestBody: TraceRequestBody, uploadBody: RequestBody?,
        recorder: TraceRecorder, failure: String
    ) {
        let transactions = response.metrics?.transactionMetrics ?? []
        let verbose = Verbose.text(session: session, response: response, bodyCount: 0, dataLines: false, uploadBody: uploadBody)
            .split(omittingEmptySubsequences: false) { $0 == "\n" || $0 == "\r\n" }  // CR LF is one Character
        let infoBefore = verbose.prefix { !$0.hasPrefix("> ") && !$0.hasPrefix("< ") }.filter { $0.hasPrefix("* ") }
        let infoAfter = verbose.reversed().prefix { !$0.hasPrefix("> ") && !$0.hasPrefix("< ") }.reversed().filter { $0.hasPrefix("* ") }
        let last = transactions.last
        writing { emit in
            for line in infoBefore { emit(stamp(last?.connectEndDate ?? last?.fetchStartDate) + "== Info: \(line.dropFirst(2))\n") }
            for (index, transaction) in transactions.enumerated() where transaction.requestStartDate != nil {
                if let head = session.serializedRequestHead(for: transaction.request, uploadBody: uploadBody) {
                    emit(stamp(transaction.requestStartDate) + TraceDump.section("=> Send header", head, style: style))
                }
                requestBody.emitSections(limit: Int(transaction.countOfRequestBodyBytesSent)) { bytes in
                    emit(stamp(transaction.requestEndDate) + TraceDump.section("=> Send data", bytes, style: style))
                }
                if let http = transaction.response {
                    for line in Self.headLines(http) {
                        emit(stamp(transaction.responseStartDate) + TraceDump.section("<= Recv header", line, style: style))
                    }
                }
                if index == transactions.count - 1 { recorder.emitDataSections(self, emit) }
            }
            if !failure.isEmpty { emit(stamp(nil) + "== Info: \(failure)\n") }
            for line in infoAfter { emit(stamp(nil) + "== Info: \(line.dropFirst(2))\n") }
        }
    }

    /// A response head's lines as bytes, each with its CR LF, then the blank line.
    static func headLines(_ http: HTTPURLResponse) -> [[UInt8]] {
        var lines = [Array("\(http.httpVersion) \(http.statusCode) \(http.reasonPhrase ?? "")\r\n".utf8)]
        for header in http.headers { lines.append(Array("\(header.name): \(header.value)\r\n".utf8)) }
        lines.append([0x0D, 0x0A])
        return lines
    }
}

/// The request body a trace shows: in memory, in a file, or none.
enum TraceRequestBody {
    case none
    case bytes(Data)
    case file(String)

    /// The largest `Send data` section: a file body is read and dumped in pieces of this size.
    static let piece = 65_536

    /// Calls `section` with the first `limit` bytes of the body, in pieces of at most
    /// ``piece`` bytes (a file is read again, never past `limit`).
    func emitSections(limit: Int, _ section: ([UInt8]) -> Void) {
        guard limit > 0 else { return }
        switch self {
        case .none: return
        case .bytes(let data):
            var start = data.startIndex
            let end = data.index(data.startIndex, offsetBy: min(limit, data.count))
            while start < end {
                let stop = data.index(start, offsetBy: min(Self.piece, end - start))
                section(Array(data[start..<stop]))
                start = stop
            }
        case .file(let path):
            let fd = open(path, O_RDONLY | O_CLOEXEC)
            guard fd >= 0 else { return }
            defer { close(fd) }
            var left = limit
            var buffer = [UInt8](repeating: 0, count: Self.piece)
            while left > 0 {
                let want = min(left, Self.piece)
                let got = buffer.withUnsafeMutableBytes { read(fd, $0.baseAddress, want) }
                guard got > 0 else { return }
                section(Array(buffer.prefix(got)))
                left -= got
            }
        }
    }
}
