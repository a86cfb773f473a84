#if FullFoundation
import Foundation
#else
import FoundationEssentials
#endif
import Transport
import Wire

/// The content-decoding stage of `ExchangeReceiver`: a coded response's head makes a
/// `ContentDecoder`, body runs go through it to the request's sink, and the end checks that the
/// coded stream was complete. Confined as the receiver is: no lock.
struct ContentDecodingStage {
    private var decoder: ContentDecoder?

    /// Chooses the body's decoder from the response head (`nil`: the body is not coded).
    mutating func prepare(for head: TransportResponseHead, configuration: ContentDecoding) {
        var codings: [String] = []
        for field in head.fields where field.hasName("content-encoding") {
            codings.append(field.value)
        }
        decoder = codings.isEmpty ? nil : ContentDecoder.make(contentEncoding: codings, status: head.status, configuration: configuration)
    }

    /// Hands a run of body bytes to the request's sink, decoded first when the response is
    /// coded. A decoding failure stops the exchange with the error (the connection is closed,
    /// not reused).
    func decode(_ bytes: UnsafeRawBufferPointer, into request: Request) {
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
    ///   decoder is only dropped).
    mutating func finish(complete: Bool, _ request: Request) {
        guard let decoder else { return }
        self.decoder = nil
        guard complete else { return }
        do {
            try decoder.finish()
            request.recordDecodedBodyBytes(decoder.decodedCount)  // the metrics' countOfResponseBodyBytesAfterDecoding
        } catch {
            request.recordError(Request.decodingFailure(error, url: request.inFlightRequest?.url))
        }
    }
}
