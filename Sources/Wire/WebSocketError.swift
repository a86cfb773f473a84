/// An error raised by the WebSocket codec (RFC 6455): which rule the bytes broke, where, and the
/// close code the endpoint should send before it closes the connection.
///
/// A struct around a ``Code`` whose cases live in a private enum, so new rules can be added without
/// breaking anyone's `switch`; compare ``code`` against the static members of ``Code``. "Need more
/// data" is never an error: the parser reports it as ``WebSocketEvent/needMoreData``.
public struct WebSocketError: Error, Hashable, Sendable, CustomStringConvertible {
    /// The rule that was broken.
    public struct Code: Hashable, Sendable, CustomStringConvertible {
        fileprivate enum Base: String, Hashable, Sendable {
            case reservedBits = "reserved-bits"
            case reservedOpcode = "reserved-opcode"
            case fragmentedControlFrame = "fragmented-control-frame"
            case controlFrameTooLong = "control-frame-too-long"
            case unexpectedContinuation = "unexpected-continuation"
            case expectedContinuation = "expected-continuation"
            case maskedFrame = "masked-frame"
            case unmaskedFrame = "unmasked-frame"
            case nonMinimalLength = "non-minimal-length"
            case lengthTooLarge = "length-too-large"
            case frameTooLarge = "frame-too-large"
            case messageTooLarge = "message-too-large"
            case invalidUTF8 = "invalid-utf8"
            case closePayload = "close-payload"
            case closeCode = "close-code"
            case closeReason = "close-reason"
            case dataAfterClose = "data-after-close"
            case truncatedFrame = "truncated-frame"
            case compressedData = "compressed-data"
        }
        fileprivate let base: Base
        fileprivate init(_ base: Base) { self.base = base }

        /// The rule's stable kebab-case name (`"reserved-bits"`), for logs and the fuzz corpus.
        public var description: String { base.rawValue }

        /// RSV1, RSV2 or RSV3 set without an extension that defines it (RFC 6455 §5.2), or RSV1 on a
        /// control or continuation frame under permessage-deflate (RFC 7692 §6).
        public static let reservedBits = Code(.reservedBits)
        /// Opcode 0x3–0x7 or 0xB–0xF: reserved, no extension defines them (RFC 6455 §5.2).
        public static let reservedOpcode = Code(.reservedOpcode)
        /// A close, ping or pong frame without FIN (RFC 6455 §5.5: control frames are never fragmented).
        public static let fragmentedControlFrame = Code(.fragmentedControlFrame)
        /// A control frame with a payload over 125 bytes (RFC 6455 §5.5).
        public static let controlFrameTooLong = Code(.controlFrameTooLong)
        /// A continuation frame with no message in progress (RFC 6455 §5.4).
        public static let unexpectedContinuation = Code(.unexpectedContinuation)
        /// A text or binary frame while a fragmented message is still in progress (RFC 6455 §5.4).
        public static let expectedContinuation = Code(.expectedContinuation)
        /// A masked frame received by a client (RFC 6455 §5.1: servers never mask).
        public static let maskedFrame = Code(.maskedFrame)
        /// An unmasked frame received by a server (RFC 6455 §5.1: clients always mask).
        public static let unmaskedFrame = Code(.unmaskedFrame)
        /// A payload length not in its minimal encoding (RFC 6455 §5.2: "the minimal number of
        /// bytes MUST be used"), e.g. 5 written in the 16-bit form.
        public static let nonMinimalLength = Code(.nonMinimalLength)
        /// A 64-bit payload length with its most significant bit set (RFC 6455 §5.2).
        public static let lengthTooLarge = Code(.lengthTooLarge)
        /// A frame payload over ``WebSocketLimits/maxFramePayloadSize``.
        public static let frameTooLarge = Code(.frameTooLarge)
        /// A message (all its fragments) over ``WebSocketLimits/maxMessageSize``.
        public static let messageTooLarge = Code(.messageTooLarge)
        /// A text message that is not UTF-8 (RFC 6455 §8.1), found at the first byte that cannot
        /// continue any valid sequence, or at the end of a message that stops inside a sequence.
        public static let invalidUTF8 = Code(.invalidUTF8)
        /// A close payload of exactly one byte (RFC 6455 §5.5.1: a body starts with a 2-byte code).
        public static let closePayload = Code(.closePayload)
        /// A close code that may not appear on the wire (see ``WebSocketCloseCode/isValidOnWire``).
        public static let closeCode = Code(.closeCode)
        /// A close reason that is not UTF-8 (RFC 6455 §5.5.1).
        public static let closeReason = Code(.closeReason)
        /// Bytes after a close frame: the peer sends nothing after it (RFC 6455 §5.5.1).
        public static let dataAfterClose = Code(.dataAfterClose)
        /// The connection ended inside a frame or a fragmented message.
        public static let truncatedFrame = Code(.truncatedFrame)
        /// A permessage-deflate message whose payload is not valid DEFLATE data (RFC 7692 §7.2.2);
        /// raised by the extension's decompressor, which lives outside this module.
        public static let compressedData = Code(.compressedData)
    }

    /// The rule the input broke.
    public let code: Code
    /// A human-readable explanation, for logs and error messages.
    public let detail: String
    /// The offset of the offending byte from the start of the stream, or `nil` when no single byte
    /// is at fault (the serializer's errors, a truncated stream).
    public let offset: Int?

    /// Creates an error. The codec throws these; other modules may create them to report misuse.
    public init(_ code: Code, _ detail: String, offset: Int? = nil) {
        self.code = code
        self.detail = detail
        self.offset = offset
    }

    /// The close code to send when failing the connection for this error (RFC 6455 §7.4.1):
    /// 1007 for bad UTF-8, 1009 for a frame or message over a limit, 1002 for everything else.
    public var closeCode: WebSocketCloseCode {
        switch code.base {
        case .invalidUTF8, .closeReason: return .invalidFramePayloadData
        case .frameTooLarge, .messageTooLarge: return .messageTooBig
        default: return .protocolError
        }
    }

    /// `"<code> at byte <offset>: <detail>"`.
    public var description: String {
        if let offset { return "\(code) at byte \(offset): \(detail)" }
        return "\(code): \(detail)"
    }

    /// A copy with the offset moved by `delta` (frame-relative offsets to stream offsets).
    func shifted(by delta: Int) -> WebSocketError {
        WebSocketError(code, detail, offset: offset.map { $0 + delta })
    }
}
