#if FullFoundation
import Foundation
#else
import FoundationEssentials
#endif
import Transport
import Wire

/// The decoding stage of `ExchangeReceiver`: a coded response's head makes a `ContentDecoder`
/// (and, when the session decodes transfer codings, one for `Transfer-Encoding: gzip, chunked`
/// first), body runs go through them to the request's sink, and the end checks that each coded
/// stream was complete. Confined as the receiver is: no lock.
struct ContentDecodingStage {
    /// The transfer coding's decoder (fetch's `--tr-encoding`), applied before `decoder`.
    private var transfer: ContentDecoder?
    private var decoder: ContentDecoder?

    /// Chooses the body's decoders from the response head (`nil`: that layer is not coded).
    mutating func prepare(for head: TransportResponseHead, configuration: ContentDecoding, reading: ResponseReading = ResponseReading()) {
        var codings: [String] = []
        var transferCodings: [String] = []
        for field in head.fields {
            if field.hasName("content-encoding") { codings.append(field.value) }
            if field.hasName("transfer-encoding") { transferCodings.append(field.value) }
        }
        guard !reading.keepsRawBody else {
            // --raw: the body goes out as received, whatever the codings.
            transfer = nil
            decoder = nil
            return
        }
        transfer = reading.decodesTransferCoding && !transferCodings.isEmpty
            ? Self.transferDecoder(transferCodings, configuration: configuration) : nil
        decoder = codings.isEmpty ? nil : ContentDecoder.make(contentEncoding: codings, status: head.status, configuration: configuration)
    }

    /// The decoder for the one compression coding a `Transfer-Encoding` names besides chunked
    /// (`gzip`, `x-gzip`, `deflate`), within the session's limits even when content decoding is
    /// off; `nil` for none, for an unknown coding, or for more than one (delivered as received).
    static func transferDecoder(_ values: [String], configuration: ContentDecoding) -> ContentDecoder? {
        var codings: [String] = []
        for value in values {
            for item in value.split(separator: ",") {
                let token = item.trimmingASCIIWhitespace().lowercased()
                if token.isEmpty || token == "chunked" || token == "identity" { continue }
                codings.append(token)
            }
        }
        var limits = configuration
        limits.isEnabled = true
        guard codings.count == 1, let only = codings.first else { return nil }
        return ContentDecoder.make(contentEncoding: [only], status: 200, configuration: limits)
    }

    /// Hands a run of body bytes to the request's sink, decoded first when the response is
    /// coded. A decoding failure stops the exchange with the error (the connection is closed,
    /// not reused).
    func decode(_ bytes: UnsafeRawBufferPointer, into request: Request) {
        guard let transfer else { return decodeContent(bytes, into: request) }
        do {
            try transfer.decode(bytes) { decodeContent($0, into: request) }
        } catch {
            request.abortExchange { urlRequest in Request.decodingFailure(error, url: urlRequest?.url) }
        }
    }

    private func decodeContent(_ bytes: UnsafeRawBufferPointer, into request: Request) {
        guard let decoder else { return request.didReceiveBody(bytes) }
        do {
            try decoder.decode(bytes) { request.didReceiveBody($0) }
        } catch {
            request.abortExchange { urlRequest in Request.decodingFailure(error, url: urlRequest?.url) }
        }
    }

    /// Ends the body's decoding when the exchange ended; a body that stopped inside its coded
    /// stream records the error the handlers see (never a shorter success).
    /// - Parameter complete: Whether the exchange ended normally (`false`: it failed, and the
    ///   decoders are only dropped).
    mutating func finish(complete: Bool, _ request: Request) {
        let transfer = self.transfer, decoder = self.decoder
        self.transfer = nil
        self.decoder = nil
        guard complete else { return }
        do {
            try transfer?.finish()
            try decoder?.finish()
            if let decoder { request.recordDecodedBodyBytes(decoder.decodedCount) }  // the metrics' countOfResponseBodyBytesAfterDecoding
        } catch {
            request.recordError(Request.decodingFailure(error, url: request.inFlightRequest?.url))
        }
    }
}
