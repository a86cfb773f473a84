import CDirent
import Glibc
import Testing
import Wire

// Replays the fuzzers' files in the normal test suite: every minimized crasher in Fuzz/FailCases
// and every seed in Fuzz/corpus/<target>, so a fixed bug cannot come back unnoticed and a seed that
// starts failing is caught without running a fuzzer (swift-protobuf's `Test_FuzzTests.swift` idea).
//
// Files are decoded exactly as the fuzz targets decode them (Fuzz/Sources/FuzzHarness/StreamInput.swift
// and SerializerOracles.swift; keep the two in step) and checked with the oracles that need no
// fuzz harness: the same events and error whole, byte by byte and at the fuzzer's own split; limits
// on what reaches the caller; `Connection: close` honoured; the serializer's line structure.

/// One fuzz input file.
struct FuzzFile: CustomTestStringConvertible, Sendable {
    /// Which target's input layout the file uses.
    enum Target: String, Sendable { case parser, chunked, serializer }

    var target: Target
    /// The path below `Fuzz/`.
    var name: String
    var bytes: [UInt8]
    var testDescription: String { name }
}

@Suite("Fuzz replay")
struct FuzzReplayTests {
    @Test("the fuzz directories are found and hold every target's files")
    func filesFound() {
        for target in [FuzzFile.Target.parser, .chunked, .serializer] {
            #expect(fuzzFiles.contains { $0.target == target }, "no \(target) files under \(fuzzDirectory)")
        }
        #expect(fuzzFiles.contains { $0.name.hasPrefix("FailCases/") })
    }

    @Test("response streams: same events whole, byte by byte and split; limits and close honoured",
          arguments: fuzzFiles.filter { $0.target != .serializer })
    func stream(_ file: FuzzFile) {
        checkStream(file)
    }

    @Test("request heads: a WireError and an untouched buffer, or no CR or LF but the line ends",
          arguments: fuzzFiles.filter { $0.target == .serializer })
    func serializer(_ file: FuzzFile) {
        checkSerializer(file)
    }
}

// MARK: Response streams

private let smallLimits = ParserLimits(
    maxStatusLineLength: 64, maxHeaderSectionSize: 256, maxFieldCount: 8, maxChunkSizeDigits: 4,
    maxChunkExtensionLength: 16, maxTrailerSectionSize: 128, maxInterimResponses: 3, maxChunkedOverhead: 64
)
private let edgeLimits = ParserLimits(
    maxStatusLineLength: 200, maxHeaderSectionSize: 100, maxFieldCount: 1, maxChunkSizeDigits: 1,
    maxChunkExtensionLength: 0, maxTrailerSectionSize: 2, maxInterimResponses: 0
)
private let chunkedHead = Array("HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n".utf8)

/// The stream, methods, limits and split seed a `parser` or `chunked` file stands for.
private func decodeStream(_ file: FuzzFile) -> (stream: [UInt8], methods: [RequestMethod], limits: ParserLimits, seed: UInt64) {
    let b = file.bytes
    func limits(_ options: UInt8) -> ParserLimits {
        switch options & 3 {
        case 0: return .default
        case 2: return edgeLimits
        default: return smallLimits
        }
    }
    if file.target == .chunked {
        let options = b.first ?? 0
        return (chunkedHead + b.dropFirst(), [.get, .get], limits(options), UInt64(options >> 2))
    }
    let methodsByte = b.first ?? 0
    let options = b.count > 1 ? b[1] : 0
    let methods: [RequestMethod] = (0..<(Int(methodsByte & 3) % 3 + 1)).map { index in
        switch (methodsByte >> (2 + 2 * UInt8(index))) & 3 {
        case 1: return .options
        case 2: return .head
        case 3: return .connect
        default: return .get
        }
    }
    return (Array(b.dropFirst(2)), methods, limits(options), UInt64(options >> 2))
}

private func checkStream(_ file: FuzzFile) {
    let (stream, methods, limits, seed) = decodeStream(file)
    let whole = transcript(Splits.whole(stream), methods: methods, eof: true, limits: limits)
    for (label, pieces) in [("byte by byte", Splits.byteByByte(stream)), ("split with seed \(seed)", Splits.random(stream, seed: seed))] {
        let other = transcript(pieces, methods: methods, eof: true, limits: limits)
        #expect(other == whole, "\(label):\n\(other)\nwhole:\n\(whole)")
    }

    var interimRun = 0
    for event in whole {
        switch event {
        case .interim(_, let fields):
            interimRun += 1
            #expect(interimRun <= limits.maxInterimResponses, "\(interimRun) interim responses")
            #expect(fields.count <= limits.maxFieldCount)
        case .head(_, _, let fields, _, let keepAlive):
            interimRun = 0
            #expect(fields.count <= limits.maxFieldCount)
            // RFC 9112 §9.6: after `Connection: close` the connection is not reused. Options are
            // read from the value as the caller sees it, obs-fold replaced by SP (§5.2).
            let closes = fields.contains { field in
                field.name.lowercased() == "connection"
                    && field.value.split(separator: ",").contains { $0.trimmingSpaceAndTab().lowercased() == "close" }
            }
            if closes { #expect(!keepAlive, "keep-alive after Connection: close in \(fields)") }
        case .end(let trailers, _, _):
            #expect(trailers.count <= limits.maxFieldCount)
        case .upgraded, .body, .error:
            break
        }
    }
}

extension Substring {
    fileprivate func trimmingSpaceAndTab() -> Substring {
        var s = self[...]
        while let first = s.first, first == " " || first == "\t" { s = s.dropFirst() }
        while let last = s.last, last == " " || last == "\t" { s = s.dropLast() }
        return s
    }
}

// MARK: Request heads

/// The request head a `serializer` file stands for (layout in SerializerOracles.swift).
private func decodeHead(_ bytes: [UInt8]) -> RequestHead {
    let flags = bytes.first ?? 0
    var rest = bytes.dropFirst()
    var framing = RequestFraming.none
    if flags & 3 == 2 {
        framing = .chunked
    } else if flags & 3 != 0 {
        var length: UInt64 = 0
        for (index, byte) in rest.prefix(8).enumerated() { length |= UInt64(byte) << (8 * UInt64(index)) }
        framing = .contentLength(Int(truncatingIfNeeded: length))
        rest = rest.dropFirst(8)
    }
    let segments = rest.split(separator: 0xFF, omittingEmptySubsequences: false).map { String(decoding: $0, as: UTF8.self) }
    func segment(_ index: Int) -> String { index < segments.count ? segments[index] : "" }
    let fields = stride(from: 3, to: segments.count, by: 2).map { (name: segment($0), value: segment($0 + 1)) }
    return RequestHead(
        method: RequestMethod(segment(0)), target: segment(1), authority: segment(2),
        fields: fields, framing: framing, expectContinue: flags & 4 != 0
    )
}

private let serializerRules: Set<WireError.Rule> = [.requestMethod, .requestTarget, .requestFieldName, .requestFieldValue, .requestFramingField]

private func checkSerializer(_ file: FuzzFile) {
    let head = decodeHead(file.bytes)
    let prefix = Array("kept".utf8)
    var buffer = prefix
    do throws(WireError) {
        try RequestSerializer.serialize(head, into: &buffer)
    } catch {
        #expect(serializerRules.contains(error.rule), "\(error)")
        #expect(buffer == prefix, "a failed serialize changed the buffer")
        return
    }
    let written = Array(buffer.dropFirst(prefix.count))
    var lineEnds = 0
    for (i, byte) in written.enumerated() {
        if byte == 0x0D { #expect(i + 1 < written.count && written[i + 1] == 0x0A, "bare CR at \(i)") }
        if byte == 0x0A {
            #expect(i > 0 && written[i - 1] == 0x0D, "bare LF at \(i)")
            lineEnds += 1
        }
    }
    let lines = 3 + head.fields.count + (head.framing == .none ? 0 : 1) + (head.expectContinue ? 1 : 0)
    #expect(lineEnds == lines, "\(lineEnds) line ends for \(lines) lines")
    #expect(written.suffix(4) == Array("\r\n\r\n".utf8))
}

// MARK: Files

/// `Fuzz/`, found from this file's path: `<repo>/Tests/WireTests/FuzzReplayTests.swift`.
private let fuzzDirectory: String = {
    var components = String(#filePath).split(separator: "/", omittingEmptySubsequences: false)
    components.removeLast(3)
    return components.joined(separator: "/") + "/Fuzz"
}()

/// Every replayable file, sorted by name.
let fuzzFiles: [FuzzFile] = {
    var files: [FuzzFile] = []
    for target in [FuzzFile.Target.parser, .chunked, .serializer] {
        for name in fileNames(in: "\(fuzzDirectory)/corpus/\(target.rawValue)") {
            files.append(FuzzFile(target: target, name: "corpus/\(target.rawValue)/\(name)", bytes: contents(of: "\(fuzzDirectory)/corpus/\(target.rawValue)/\(name)")))
        }
    }
    for name in fileNames(in: "\(fuzzDirectory)/FailCases") {
        guard let target = FuzzFile.Target(rawValue: String(name.prefix { $0 != "-" })) else { continue }
        files.append(FuzzFile(target: target, name: "FailCases/\(name)", bytes: contents(of: "\(fuzzDirectory)/FailCases/\(name)")))
    }
    return files.sorted { $0.name < $1.name }
}()

/// The regular files in `directory` (not starting with a dot), or none if it cannot be read.
/// Shared with WebSocketCorpusReplayTests.
func fileNames(in directory: String) -> [String] {
    guard let dir = opendir(directory) else { return [] }
    defer { closedir(dir) }
    var names: [String] = []
    while let entry = readdir(dir) {
        // d_name is read in place up to its NUL (CDirent): a record is only as long as its name,
        // so copying the 256-byte d_name tuple read past the last record (AddressSanitizer,
        // heap-buffer-overflow, with the 676-file websocket corpus).
        let name = String(cString: lariat_dirent_name(entry))
        if !name.hasPrefix("."), entry.pointee.d_type == UInt8(DT_REG) { names.append(name) }
    }
    return names
}

/// The bytes of the file at `path` (empty if it cannot be read: the checks then see an empty input).
func contents(of path: String) -> [UInt8] {
    guard let file = fopen(path, "rb") else { return [] }
    defer { fclose(file) }
    var bytes: [UInt8] = []
    var chunk = [UInt8](repeating: 0, count: 4096)
    while true {
        let count = fread(&chunk, 1, chunk.count, file)
        if count == 0 { break }
        bytes += chunk[..<count]
    }
    return bytes
}
