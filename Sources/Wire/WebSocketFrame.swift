// The vocabulary of RFC 6455 §5: opcodes, close codes, mask keys, limits, and the base framing
// header every frame starts with:
//
//    0                   1                   2                   3
//   +-+-+-+-+-------+-+-------------+-------------------------------+
//   |F|R|R|R| opcode|M| Payload len |    Extended payload length    |
//   |I|S|S|S|  (4)  |A|     (7)     |             (16/64)           |
//   |N|V|V|V|       |S|             |   (if payload len==126/127)   |
//   | |1|2|3|       |K|             |                               |
//   +-+-+-+-+-------+-+-------------+ - - - - - - - - - - - - - - - +
//   |     Extended payload length continued, if payload len == 127  |
//   + - - - - - - - - - - - - - - - +-------------------------------+
//   |                               |Masking-key, if MASK set to 1  |
//   +-------------------------------+-------------------------------+
//   | Masking-key (continued)       |          Payload Data         |
//   +-------------------------------- - - - - - - - - - - - - - - - +

/// A frame's opcode (RFC 6455 §5.2). The reserved values 0x3–0x7 and 0xB–0xF have no case: the
/// parser refuses them (``WebSocketError/Code/reservedOpcode``).
public enum WebSocketOpcode: UInt8, Sendable, Hashable, CaseIterable {
    /// A later fragment of a text or binary message.
    case continuation = 0x0
    /// The first (or only) frame of a UTF-8 text message.
    case text = 0x1
    /// The first (or only) frame of a binary message.
    case binary = 0x2
    /// A close frame: an optional 2-byte code and UTF-8 reason.
    case close = 0x8
    /// A ping: the peer answers with a pong carrying the same payload.
    case ping = 0x9
    /// A pong, solicited or not.
    case pong = 0xA

    /// Whether this is a control opcode (close, ping, pong): at most 125 bytes, never fragmented.
    public var isControl: Bool { rawValue & 0x8 != 0 }
}

/// A close status code (RFC 6455 §7.4), as a value that can hold any 16-bit number a peer sends.
public struct WebSocketCloseCode: RawRepresentable, Hashable, Sendable, CustomStringConvertible {
    /// The 16-bit code.
    public var rawValue: UInt16
    /// Wraps any 16-bit code; ``isValidOnWire`` says whether it may be sent.
    public init(rawValue: UInt16) { self.rawValue = rawValue }

    /// 1000: the purpose of the connection is fulfilled.
    public static let normalClosure = Self(rawValue: 1000)
    /// 1001: the endpoint is going away (server shutdown, page navigation).
    public static let goingAway = Self(rawValue: 1001)
    /// 1002: the peer broke the protocol.
    public static let protocolError = Self(rawValue: 1002)
    /// 1003: the endpoint cannot accept this kind of data.
    public static let unsupportedData = Self(rawValue: 1003)
    /// 1005: no code was present in the close frame. Never sent on the wire.
    public static let noStatusReceived = Self(rawValue: 1005)
    /// 1006: the connection closed without a close frame. Never sent on the wire.
    public static let abnormalClosure = Self(rawValue: 1006)
    /// 1007: a message's data did not match its type (non-UTF-8 text).
    public static let invalidFramePayloadData = Self(rawValue: 1007)
    /// 1008: a message broke the endpoint's policy.
    public static let policyViolation = Self(rawValue: 1008)
    /// 1009: a message was too big to process.
    public static let messageTooBig = Self(rawValue: 1009)
    /// 1010: the client expected an extension the server did not negotiate.
    public static let mandatoryExtensionMissing = Self(rawValue: 1010)
    /// 1011: the server met an unexpected condition.
    public static let internalServerError = Self(rawValue: 1011)
    /// 1015: the TLS handshake failed. Never sent on the wire.
    public static let tlsHandshakeFailure = Self(rawValue: 1015)

    /// Whether the code may appear in a close frame: 1000–1003 and 1007–1011 (RFC 6455 §7.4.1),
    /// 1012–1014 (registered with IANA since: service restart, try again later, bad gateway, which
    /// servers do send; Autobahn's case 7.9 does not list them as invalid), and 3000–4999
    /// (registered and private use, §7.4.2). 1004 is reserved, 1005, 1006 and 1015 are for
    /// reporting only, 0–999, 1016–2999 and 5000+ are unassigned or undefined.
    public var isValidOnWire: Bool {
        switch rawValue {
        case 1000...1003, 1007...1014, 3000...4999: return true
        default: return false
        }
    }

    /// The decimal code.
    public var description: String { String(rawValue) }
}

/// The 4-byte masking key of a client-to-server frame (RFC 6455 §5.3).
///
/// The serializer takes the key from its caller, so it stays a pure function: the client draws
/// each key from a strong random source (RFC 6455 §10.3), tests pass fixed ones.
public struct WebSocketMaskKey: Hashable, Sendable {
    /// The key's four bytes in wire order.
    public var bytes: (UInt8, UInt8, UInt8, UInt8)

    /// Creates a key from its four bytes in wire order.
    public init(_ b0: UInt8, _ b1: UInt8, _ b2: UInt8, _ b3: UInt8) { bytes = (b0, b1, b2, b3) }

    /// The key as one big-endian number: byte 0 is the most significant.
    public init(_ value: UInt32) {
        self.init(UInt8(value >> 24), UInt8(value >> 16 & 0xFF), UInt8(value >> 8 & 0xFF), UInt8(value & 0xFF))
    }

    /// The key byte that masks payload byte `index` (`index` counted from the payload's start).
    @inline(__always)
    public subscript(index: Int) -> UInt8 {
        switch index & 3 {
        case 0: return bytes.0
        case 1: return bytes.1
        case 2: return bytes.2
        default: return bytes.3
        }
    }

    /// The key rotated so that payload byte `offset` is masked by the result's byte 0: lets a caller
    /// unmask a range that starts mid-payload as if it were a payload of its own.
    public func rotated(by offset: Int) -> WebSocketMaskKey {
        WebSocketMaskKey(self[offset], self[offset + 1], self[offset + 2], self[offset + 3])
    }

    /// XORs `buffer` with the key in place, `buffer[0]` with key byte 0 (masking and unmasking are
    /// the same operation).
    public func apply(to buffer: UnsafeMutableRawBufferPointer) {
        for i in 0..<buffer.count { buffer[i] ^= self[i] }
    }

    /// Compares the four bytes.
    public static func == (a: Self, b: Self) -> Bool {
        a.bytes.0 == b.bytes.0 && a.bytes.1 == b.bytes.1 && a.bytes.2 == b.bytes.2 && a.bytes.3 == b.bytes.3
    }

    /// Hashes the four bytes.
    public func hash(into hasher: inout Hasher) {
        hasher.combine(bytes.0); hasher.combine(bytes.1); hasher.combine(bytes.2); hasher.combine(bytes.3)
    }
}

/// Upper bounds on what a WebSocket peer controls.
///
/// Both are checked against the lengths a frame header declares, before any payload byte arrives,
/// so a peer cannot make the endpoint wait for (or buffer) more than this.
public struct WebSocketLimits: Sendable, Hashable {
    /// The largest payload one text, binary or continuation frame may declare. 1 MiB (1,048,576
    /// bytes) by default. Control frames are bounded by RFC 6455's 125 bytes instead.
    public var maxFramePayloadSize: Int
    /// The largest message, its fragments' payloads summed (before decompression, when
    /// permessage-deflate is negotiated: the inflater has its own bound). 1 MiB by default,
    /// Alamofire's `WebSocketRequest.Configuration.maximumMessageSize`.
    public var maxMessageSize: Int

    /// Creates limits; every parameter defaults to the value documented on its property.
    public init(maxFramePayloadSize: Int = 1 << 20, maxMessageSize: Int = 1 << 20) {
        self.maxFramePayloadSize = maxFramePayloadSize
        self.maxMessageSize = maxMessageSize
    }

    /// The documented defaults.
    public static let `default` = WebSocketLimits()
}

/// Which end of the connection a codec serves; it decides which frames must be masked.
public enum WebSocketRole: Sendable, Hashable {
    /// The client: receives unmasked frames, masks what it sends.
    case client
    /// The server: receives masked frames, sends unmasked ones.
    case server
}
