// permessage-deflate's data path without sockets: RFC 7692 §7.2.3's sample payloads inflated
// (split at every byte), "Hello" compressed byte for byte with and without context takeover,
// the shared window both ways, BFINAL streams, the size limit against a bomb, UTF-8 after
// inflating, corrupt data. Each failure names the close code the connection would send.
import Testing
import Wire
@testable import Client

/// One compressed payload (a message's frames joined, as sent: no 00 00 FF FF tail).
struct DeflateVector: CustomTestStringConvertible, Sendable {
    var name: String
    var payload: [UInt8]
    var text: String
    var testDescription: String { name }
}

/// RFC 7692 §7.2.3's examples, each "Hello".
let rfc7692Vectors: [DeflateVector] = [
    .init(name: "§7.2.3.1 one compressed frame", payload: [0xF2, 0x48, 0xCD, 0xC9, 0xC9, 0x07, 0x00], text: "Hello"),
    .init(name: "§7.2.3.3 a stored (uncompressed) block",
          payload: [0x00, 0x05, 0x00, 0xFA, 0xFF, 0x48, 0x65, 0x6C, 0x6C, 0x6F, 0x00], text: "Hello"),
    .init(name: "§7.2.3.4 a block with BFINAL", payload: [0xF3, 0x48, 0xCD, 0xC9, 0xC9, 0x07, 0x00, 0x00], text: "Hello"),
    .init(name: "§7.2.3.5 two blocks in one message",
          payload: [0xF2, 0x48, 0x05, 0x00, 0x00, 0x00, 0xFF, 0xFF, 0xCA, 0xC9, 0xC9, 0x07, 0x00], text: "Hello"),
    .init(name: "§7.2.3.6 an empty message", payload: [0x00], text: ""),
]

@Suite("PerMessageDeflateCodec")
struct PerMessageDeflateCodecTests {
    static let hello: [UInt8] = [0xF2, 0x48, 0xCD, 0xC9, 0xC9, 0x07, 0x00]
    /// §7.2.3.2: the second "Hello" referring back into the first.
    static let helloAgain: [UInt8] = [0xF2, 0x00, 0x11, 0x00, 0x00]

    static func codec(_ parameters: PerMessageDeflate.Parameters = .init(), max: Int = 1 << 20) -> PerMessageDeflateCodec {
        PerMessageDeflateCodec(parameters: parameters, maxMessageSize: max)
    }

    /// Inflates one message given as `runs` (payload pieces as they would arrive).
    static func inflate(_ codec: PerMessageDeflateCodec, _ runs: [[UInt8]], text: Bool = true) throws(WebSocketError) -> [UInt8] {
        codec.beginMessage(text: text)
        var out: [UInt8] = []
        for run in runs {
            let piece: Result<[UInt8], WebSocketError> = run.withUnsafeBytes { raw in
                do throws(WebSocketError) { return .success(try codec.inflate(raw)) } catch { return .failure(error) }
            }
            out += try piece.get()
        }
        return out + (try codec.endMessage())
    }

    static func compress(_ codec: PerMessageDeflateCodec, _ message: [UInt8]) throws -> [UInt8] {
        try message.withUnsafeBytes { try codec.compress($0) }
    }

    @Test("RFC 7692 §7.2.3 payloads inflate to Hello, split at every byte", arguments: rfc7692Vectors)
    func vectors(_ vector: DeflateVector) throws {
        for split in 0...vector.payload.count {
            let runs = [Array(vector.payload[..<split]), Array(vector.payload[split...])]
            #expect(try Self.inflate(Self.codec(), runs) == Array(vector.text.utf8), "split at \(split)")
        }
    }

    @Test("Hello compresses to §7.2.3.1's bytes; the second one to §7.2.3.2's with the window shared")
    func compressHello() throws {
        let shared = Self.codec()
        #expect(try Self.compress(shared, Array("Hello".utf8)) == Self.hello)
        #expect(try Self.compress(shared, Array("Hello".utf8)) == Self.helloAgain)
        let reset = Self.codec(.init(clientNoContextTakeover: true))
        #expect(try Self.compress(reset, Array("Hello".utf8)) == Self.hello)
        #expect(try Self.compress(reset, Array("Hello".utf8)) == Self.hello, "client_no_context_takeover resets the deflater")
    }

    @Test("the shared window on receipt: kept by default, reset under server_no_context_takeover")
    func sharedWindow() throws {
        let kept = Self.codec()
        #expect(try Self.inflate(kept, [Self.hello]) == Array("Hello".utf8))
        #expect(try Self.inflate(kept, [Self.helloAgain]) == Array("Hello".utf8))
        let reset = Self.codec(.init(serverNoContextTakeover: true))
        #expect(try Self.inflate(reset, [Self.hello]) == Array("Hello".utf8))
        #expect(throws: WebSocketError.self) { try Self.inflate(reset, [Self.helloAgain]) }
    }

    @Test("after a BFINAL block the next message starts a new stream")
    func afterFinalBlock() throws {
        let codec = Self.codec()
        #expect(try Self.inflate(codec, [[0xF3, 0x48, 0xCD, 0xC9, 0xC9, 0x07, 0x00, 0x00]]) == Array("Hello".utf8))
        #expect(try Self.inflate(codec, [Self.hello]) == Array("Hello".utf8))
    }

    @Test("round trips at every window size, with and without context takeover", arguments: 9...15)
    func roundTrip(bits: Int) throws {
        var generator = SystemRandomNumberGenerator()
        let block = (0..<700).map { _ in UInt8.random(in: 0...255, using: &generator) }
        let messages: [[UInt8]] = [block + block, Array(repeating: 0x41, count: 100_000), [], block]
        for takeover in [false, true] {
            let sender = Self.codec(.init(clientNoContextTakeover: !takeover, clientMaxWindowBits: bits))
            let receiver = Self.codec(.init(serverNoContextTakeover: !takeover))
            for message in messages {
                let wire = try Self.compress(sender, message)
                #expect(try Self.inflate(receiver, [wire], text: false) == message)
            }
        }
    }

    @Test("a bomb past maximumMessageSize fails with 1009 after at most one output run")
    func bomb() throws {
        let sender = Self.codec()
        let wire = try Self.compress(sender, [UInt8](repeating: 0, count: 16 << 20))
        #expect(wire.count < 20_000)
        let codec = Self.codec(max: 1 << 20)
        codec.beginMessage(text: false)
        var inflated = 0
        var failure: WebSocketError?
        for start in stride(from: 0, to: wire.count, by: 1024) {
            do throws(WebSocketError) {
                inflated += try Array(wire[start..<min(start + 1024, wire.count)]).withUnsafeBytes { raw in
                    Result { () throws(WebSocketError) in try codec.inflate(raw) }
                }.get().count
            } catch {
                failure = error
                break
            }
        }
        let error = try #require(failure)
        #expect(error.code == .messageTooLarge)
        #expect(error.closeCode == .messageTooBig)
        #expect(inflated <= 1 << 20)
        #expect(throws: WebSocketError.self) { try codec.inflate(UnsafeRawBufferPointer(start: nil, count: 0)) }
    }

    @Test("a message of exactly maximumMessageSize passes")
    func atTheLimit() throws {
        let wire = try Self.compress(Self.codec(), [UInt8](repeating: 7, count: 4096))
        #expect(try Self.inflate(Self.codec(max: 4096), [wire], text: false).count == 4096)
        #expect(throws: WebSocketError.self) { try Self.inflate(Self.codec(max: 4095), [wire], text: false) }
    }

    @Test("inflated text is checked as UTF-8: a bad byte and a truncated sequence give 1007",
          arguments: [[0x61, 0xC3, 0x28], [0x61, 0xE2, 0x82]] as [[UInt8]])
    func invalidUTF8(_ text: [UInt8]) throws {
        let wire = try Self.compress(Self.codec(), text)
        #expect(try Self.inflate(Self.codec(), [wire], text: false) == text, "binary messages are not checked")
        do {
            _ = try Self.inflate(Self.codec(), [wire], text: true)
            Issue.record("accepted invalid UTF-8")
        } catch {
            #expect(error.code == .invalidUTF8)
            #expect(error.closeCode == .invalidFramePayloadData)
        }
    }

    @Test("corrupt DEFLATE data fails with 1002")
    func corrupt() throws {
        do {
            _ = try Self.inflate(Self.codec(), [[0xFF, 0xFF, 0xFF, 0xFF]])
            Issue.record("accepted corrupt data")
        } catch {
            #expect(error.code == .compressedData)
            #expect(error.closeCode == .protocolError)
        }
    }
}
