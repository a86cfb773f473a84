// wire-decode: reads a raw HTTP/1.1 response stream on stdin and prints one JSON line per final
// response, or one error line for the response that fails (then exits 1). End of input is the
// peer closing the connection. See README "wire-decode".

#if canImport(Glibc)
import Glibc
#endif
import Wire

@main
struct WireDecode {
    static func main() {
        let options: Options
        do {
            options = try Options(CommandLine.arguments.dropFirst())
        } catch {
            printError("wire-decode: \(error.message)\n\(Options.usage)")
            exit(2)
        }
        var decoder = Decoder(options: options)
        var chunk = [UInt8](repeating: 0, count: 64 * 1024)
        while true {
            let n = chunk.withUnsafeMutableBytes { read(0, $0.baseAddress, $0.count) }
            if n < 0 {
                if errno == EINTR { continue }
                printError("wire-decode: read failed (errno \(errno))")
                exit(2)
            }
            if n == 0 { break }
            var start = 0
            while start < n {
                let end = min(n, start + options.split)
                if !decoder.feed(chunk[start..<end]) { exit(1) }
                start = end
            }
        }
        exit(decoder.finish() ? 0 : 1)
    }
}

/// Writes a line to standard error.
func printError(_ message: String) {
    var line = message + "\n"
    line.withUTF8 { _ = write(2, $0.baseAddress, $0.count) }
}

/// Command-line options.
struct Options {
    struct Failure: Error { var message: String }

    static let usage = "usage: wire-decode [--methods GET,HEAD,...] [--split N] < stream"

    /// The requests sent on the connection, in order; nil means "a GET for every response found".
    var methods: [RequestMethod]?
    /// Feed the parser this many bytes at a time.
    var split = Int.max

    init<S: Sequence>(_ arguments: S) throws(Failure) where S.Element == String {
        var iterator = arguments.makeIterator()
        while let argument = iterator.next() {
            switch argument {
            case "--methods":
                guard let list = iterator.next(), !list.isEmpty else { throw Failure(message: "--methods needs a list") }
                methods = list.split(separator: ",").map { RequestMethod(String($0)) }
            case "--split":
                guard let value = iterator.next().flatMap({ Int($0) }), value > 0 else { throw Failure(message: "--split needs a positive number") }
                split = value
            case "-h", "--help":
                print(Options.usage)
                exit(0)
            default:
                throw Failure(message: "unknown argument \(argument)")
            }
        }
    }
}

/// Drives the parser over the stream and prints records.
struct Decoder {
    private var parser = ResponseParser()
    private var buffer: [UInt8] = []
    private let implicitGET: Bool
    private var interim: [Int] = []
    private var record = JSONLine()
    private var hasher = SHA256()
    private var bodyLength = 0
    private var upgraded = false

    init(options: Options) {
        implicitGET = options.methods == nil
        for method in options.methods ?? [] { parser.expectResponse(to: method) }
    }

    /// Feeds bytes; returns false after printing an error.
    mutating func feed(_ bytes: ArraySlice<UInt8>) -> Bool {
        buffer.append(contentsOf: bytes)
        if upgraded { return true }
        var offset = 0
        defer { buffer.removeFirst(offset) }
        while true {
            if implicitGET && parser.outstandingResponses == 0 && parser.isIdle && offset < buffer.count {
                parser.expectResponse(to: .get)
            }
            let bytes = buffer  // borrowed below while `self` is mutated
            let keepGoing: Bool = bytes.withUnsafeBytes { whole in
                let input = UnsafeRawBufferPointer(rebasing: whole[offset...])
                do throws(WireError) {
                    let step = try parser.parse(input)
                    offset += step.consumed
                    return handle(step.event, input)
                } catch {
                    printError(error)
                    return false
                }
            }
            if !keepGoing { return !failed }
        }
    }

    private var failed = false

    /// Handles one event; returns whether to parse again now.
    private mutating func handle(_ event: ResponseEvent, _ input: UnsafeRawBufferPointer) -> Bool {
        switch event {
        case .needMoreData:
            return false
        case .interim(let head):
            interim.append(head.status)
        case .head(let head), .upgraded(let head):
            record = JSONLine()
            record.add("status", head.status)
            record.add("reason", head.reasonPhrase(in: input))
            record.add("interim", ints: interim)
            record.add("headers", pairs: head.fields.strings(in: input).map { ($0.name, $0.value) })
            interim = []
            bodyLength = 0
            hasher = SHA256()
            if case .upgraded = event {
                upgraded = true
                record.add("upgraded", true)
                print(record.text)
                return false
            }
        case .body(let range):
            bodyLength += range.count
            hasher.update(UnsafeRawBufferPointer(rebasing: input[range]))
        case .end(let end):
            record.add("body_length", bodyLength)
            record.add("body_sha256", hasher.finalizeHex())
            record.add("trailers", pairs: end.trailers.strings(in: input).map { ($0.name, $0.value) })
            record.add("close_delimited", end.closeDelimited)
            print(record.text)
        }
        return true
    }

    private mutating func printError(_ error: WireError) {
        failed = true
        var line = JSONLine()
        line.add("error", error.rule.rawValue)
        line.add("detail", error.detail)
        if let offset = error.offset { line.add("offset", offset) }
        print(line.text)
    }

    /// Reports end of input; returns whether everything parsed.
    mutating func finish() -> Bool {
        if upgraded { return true }
        do throws(WireError) {
            if let event = try parser.finish() {
                let bytes = buffer
                _ = bytes.withUnsafeBytes { handle(event, $0) }
            }
            return true
        } catch {
            printError(error)
            return false
        }
    }
}
