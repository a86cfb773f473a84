#if FullFoundation
import Foundation
#else
import FoundationEssentials
#endif
import Synchronization

// The hook between the transport and a request's body handling (`Request.send`'s exchange):
// a coded response's head makes a `ContentDecoder`, body runs go through it, and the end checks
// that the coded stream was complete. Every entry runs on the thread the exchange reports on
// (its connection's loop), in order. An uncoded response costs one uncontended lock per head
// and per body run.

extension Request {
    /// Chooses the body's decoder from the response head; called before `didReceive(head:)`.
    func prepareContentDecoding(for head: TransportResponseHead) {
        var codings: [String] = []
        for field in head.fields where field.name.utf8.count == 16 && field.name.lowercased() == "content-encoding" {
            codings.append(field.value)
        }
        let decoder = ContentDecoder.make(contentEncoding: codings, status: head.status, configuration: session.contentDecoding)
        if decoder != nil || !codings.isEmpty {
            contentDecoder.withLock { $0 = decoder }
        }
    }

    /// Receives a run of body bytes from the transport: decoded first when the response is coded.
    /// A decoding failure stops the exchange with the error (the connection is closed, not reused).
    func receiveBody(_ bytes: UnsafeRawBufferPointer) {
        guard let decoder = contentDecoder.withLock({ $0 }) else { return didReceiveBody(bytes) }
        do {
            try decoder.decode(bytes) { didReceiveBody($0) }
        } catch {
            abortExchange { request in Self.decodingFailure(error, url: request?.url) }
        }
    }

    /// Ends the body's decoding when the exchange ended; a body that stopped inside its coded
    /// stream records the error the handlers see (never a shorter success).
    /// - Parameter complete: Whether the exchange ended normally (`false`: it failed, and the
    ///   decoder is only dropped).
    func finishContentDecoding(complete: Bool) {
        guard let decoder = contentDecoder.withLock({ slot in
            defer { slot = nil }
            return slot
        }) else { return }
        guard complete else { return }
        do {
            try decoder.finish()
            recordDecodedBodyBytes(decoder.decodedCount)  // the metrics' countOfResponseBodyBytesAfterDecoding
        } catch {
            let failure = Self.decodingFailure(error, url: request?.url)
            mutable.withLock { $0.error = $0.error ?? failure }
        }
    }

    /// The error handlers see for a decoding failure: `sessionTaskFailed` with the `URLError`
    /// code of `error`'s kind, `error` underneath.
    static func decodingFailure(_ error: ContentDecodingError, url: URL?) -> AFError {
        .sessionTaskFailed(error: URLError.lariat(error.urlErrorCode, underlying: error, url: url))
    }
}

extension Session {
    /// The session's ``ContentDecoding``, from its configuration's snapshot.
    var contentDecoding: ContentDecoding { settings.contentDecoding }
}
