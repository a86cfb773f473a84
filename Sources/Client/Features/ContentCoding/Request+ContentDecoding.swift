#if FullFoundation
import Foundation
#else
import FoundationEssentials
#endif

// The glue between a request and its body's decoding: the stage itself is
// `ContentDecodingStage`, one of `ExchangeReceiver`'s, made per exchange.

extension Request {
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
