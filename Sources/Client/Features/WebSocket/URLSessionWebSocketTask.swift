#if FullFoundation
public import Foundation
#else
public import FoundationEssentials
#endif

/// Stands in for Foundation's `URLSessionWebSocketTask`, which Linux lacks (it lives in
/// FoundationNetworking, which Client never imports, and swift-corelibs-foundation's traps on
/// send and receive), so ``WebSocketRequest``'s API keeps Alamofire's types: its ``Message``
/// and ``CloseCode`` are what handlers receive and send.
public final class URLSessionWebSocketTask: Sendable {
    private init() {}

    /// A whole WebSocket message.
    public enum Message: Sendable {
        /// A binary message.
        case data(Data)
        /// A text message (its UTF-8 was validated as it arrived).
        case string(String)
    }

    /// A close code (RFC 6455 §7.4.1), with Foundation's cases and raw values.
    public enum CloseCode: Int, Sendable {
        /// Not a code: Foundation's placeholder for a close that carried none it knows.
        case invalid = 0
        /// 1000: the purpose of the connection was fulfilled.
        case normalClosure = 1000
        /// 1001: the endpoint is going away.
        case goingAway = 1001
        /// 1002: a protocol error.
        case protocolError = 1002
        /// 1003: data of a type the endpoint cannot accept.
        case unsupportedData = 1003
        /// 1005: the close frame carried no code (never sent).
        case noStatusReceived = 1005
        /// 1006: the connection was lost without a close frame (never sent).
        case abnormalClosure = 1006
        /// 1007: a message's data did not match its type (text that is not UTF-8).
        case invalidFramePayloadData = 1007
        /// 1008: a message broke the endpoint's policy.
        case policyViolation = 1008
        /// 1009: a message was too big.
        case messageTooBig = 1009
        /// 1010: the server did not negotiate an extension the client requires.
        case mandatoryExtensionMissing = 1010
        /// 1011: the server met an unexpected condition.
        case internalServerError = 1011
        /// 1015: the TLS handshake failed (never sent).
        case tlsHandshakeFailure = 1015
    }
}
