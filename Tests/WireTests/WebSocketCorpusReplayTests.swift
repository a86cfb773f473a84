import Glibc
import Testing
import Wire

// Replays the `websocket` fuzz target's committed corpus (Fuzz/corpus/websocket) and any minimized
// crasher (Fuzz/FailCases/websocket-*) in the normal suite, so an input the fuzzer once explored
// is checked on every run without a fuzzer. Files are decoded as the target decodes them
// (Fuzz/Sources/websocket/WebSocketDriver.swift; keep the two in step): an options byte (bit 0
// role, bit 1 permessage-deflate, bits 2-3 limits), then the stream.

/// One replayed file: its path below `Fuzz/` and the setup its options byte names.
struct WSCorpusFile: CustomTestStringConvertible, Sendable {
    var name: String
    var setup: WSSetup
    var stream: [UInt8]
    var testDescription: String { name }

    init(name: String, bytes: [UInt8]) {
        self.name = name
        let options = bytes.first ?? 0
        let limits: WebSocketLimits
        switch options >> 2 & 3 {
        case 0: limits = .default
        case 1: limits = WebSocketLimits(maxFramePayloadSize: 300, maxMessageSize: 1000)
        case 2: limits = WebSocketLimits(maxFramePayloadSize: 3, maxMessageSize: 5)
        default: limits = WebSocketLimits(maxFramePayloadSize: 0, maxMessageSize: 0)
        }
        setup = WSSetup(role: options & 1 == 0 ? .client : .server, compression: options & 2 != 0, limits: limits)
        stream = Array(bytes.dropFirst())
    }
}

@Suite("WebSocket fuzz corpus replay")
struct WebSocketCorpusReplayTests {
    @Test("the corpus is found")
    func found() {
        #expect(wsCorpusFiles.count >= 5, "no websocket corpus under \(wsFuzzDirectory)")
    }

    @Test("same events whole, byte by byte and at random splits; an error only at the end", arguments: wsCorpusFiles)
    func replay(_ file: WSCorpusFile) {
        let (transcript, mismatch) = wsSplitInvariantTranscript(file.stream, setup: file.setup, everyIndex: false)
        #expect(mismatch == nil, "\(mismatch ?? "")")
        let errors = transcript.indices.filter { if case .error = transcript[$0] { return true } else { return false } }
        #expect(errors.isEmpty || errors == [transcript.count - 1], "\(transcript)")
    }
}

private let wsFuzzDirectory: String = {
    var components = String(#filePath).split(separator: "/", omittingEmptySubsequences: false)
    components.removeLast(3)
    return components.joined(separator: "/") + "/Fuzz"
}()

/// The corpus and crasher files, sorted by name.
let wsCorpusFiles: [WSCorpusFile] = {
    var files: [WSCorpusFile] = []
    for name in fileNames(in: "\(wsFuzzDirectory)/corpus/websocket") {
        files.append(WSCorpusFile(name: "corpus/websocket/\(name)", bytes: contents(of: "\(wsFuzzDirectory)/corpus/websocket/\(name)")))
    }
    for name in fileNames(in: "\(wsFuzzDirectory)/FailCases") where name.hasPrefix("websocket-") {
        files.append(WSCorpusFile(name: "FailCases/\(name)", bytes: contents(of: "\(wsFuzzDirectory)/FailCases/\(name)")))
    }
    return files.sorted { $0.name < $1.name }
}()
