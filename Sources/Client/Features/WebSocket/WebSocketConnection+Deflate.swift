// permessage-deflate on a running connection: outgoing data messages are compressed into one
// frame with RSV1 (RFC 7692 §6: RSV1 on a message's first frame only, and Lariat sends every
// message as one frame); incoming messages whose first frame had RSV1 are inflated as their
// payload arrives (PerMessageDeflateCodec). Control frames are never compressed (§6.1), and a
// message without RSV1 passes untouched even when the extension is in force (§6: "per message").
// On the connection's loop, like everything in WebSocketConnection.

import Wire

extension WebSocketConnection {
    /// Queues a text or binary message as one frame, compressed when permessage-deflate is in force.
    func queueMessage(_ opcode: WebSocketOpcode, _ payload: [UInt8]) throws(WebSocketError) {
        guard let deflate, opcode == .text || opcode == .binary else { return try queueFrame(opcode, payload) }
        let compressed: Result<[UInt8], WebSocketError> = payload.withUnsafeBytes { raw in
            do throws(WebSocketError) { return .success(try deflate.compress(raw)) } catch { return .failure(error) }
        }
        let before = outgoing.count
        var generator = SystemRandomNumberGenerator()
        let mask = WebSocketMaskKey(UInt32.random(in: 0...UInt32.max, using: &generator))  // RFC 6455 §5.3
        try WebSocketSerializer.appendFrame(opcode: opcode, payload: try compressed.get(), compressed: true, mask: mask, into: &outgoing)
        queued += outgoing.count - before
    }

    /// A parser event as the state machine's events: for a compressed message, its data
    /// inflated (a message's end may carry the last inflated bytes). Bytes are copied out of `raw`.
    func receivedEvents(_ event: WebSocketEvent, in raw: UnsafeRawBufferPointer) throws(WebSocketError) -> [WebSocketConnectionStateMachine.ReceivedEvent] {
        switch event {
        case .messageStart(let opcode, compressed: true):
            guard let deflate else { throw WebSocketError(.reservedBits, "RSV1 without permessage-deflate") }
            deflate.beginMessage(text: opcode == .text)
            inflatingMessage = true
            return [.messageStart(opcode)]
        case .messageStart:
            inflatingMessage = false
        case .messageData(let range, _) where inflatingMessage:
            guard let deflate else { break }
            return [.messageData(try deflate.inflate(UnsafeRawBufferPointer(rebasing: raw[range])))]
        case .messageEnd where inflatingMessage:
            guard let deflate else { break }
            inflatingMessage = false
            return [.messageData(try deflate.endMessage()), .messageEnd]
        default:
            break
        }
        return Self.received(event, in: raw).map { [$0] } ?? []
    }
}
