#if FullFoundation
import Foundation
#else
import FoundationEssentials
#endif

extension ResponseSerializer {
    /// Whether the request's method or the response's status code allows an empty body
    /// (Alamofire's current name for ``emptyResponseAllowed(request:response:)``).
    /// - Parameters:
    ///   - request: The request.
    ///   - response: The response.
    /// - Returns: `true` if either allows it.
    public func emptyResponseAllowed(forRequest request: URLRequest?, response: HTTPURLResponse?) -> Bool {
        emptyResponseAllowed(request: request, response: response)
    }
}

extension ResponseSerializer where Self == DataResponseSerializer {
    /// A ``DataResponseSerializer`` with the default settings.
    public static var data: DataResponseSerializer { DataResponseSerializer() }
}

extension ResponseSerializer where Self == StringResponseSerializer {
    /// A ``StringResponseSerializer`` with the default settings.
    public static var string: StringResponseSerializer { StringResponseSerializer() }
}

/// Alamofire's former name for ``DisabledTrustEvaluator``.
@available(*, deprecated, renamed: "DisabledTrustEvaluator", message: "DisabledEvaluator has been renamed DisabledTrustEvaluator.")
public typealias DisabledEvaluator = DisabledTrustEvaluator

// Overloads for serializers that are both data and download serializers, as Alamofire declares
// them: a leading-dot member such as `.data` or `.string` is looked up on the parameter's
// protocol, and those static members live on ``ResponseSerializer`` (not on
// ``DataResponseSerializerProtocol``), so `serializingResponse(using: .data)` needs this overload.

extension DataRequest {
    /// The response serialized by `serializer` (which may be given as `.data`, `.string` or
    /// `.decodable(of:)`), awaited.
    /// - Parameters:
    ///   - serializer: The serializer.
    ///   - shouldAutomaticallyCancel: Cancel the request when the awaiting task is cancelled;
    ///     `true` by default, as in Alamofire.
    /// - Returns: The task to await.
    public func serializingResponse<Serializer: ResponseSerializer>(
        using serializer: Serializer, automaticallyCancelling shouldAutomaticallyCancel: Bool = true
    ) -> DataTask<Serializer.SerializedObject> {
        dataTask(using: serializer, automaticallyCancelling: shouldAutomaticallyCancel)
    }

    /// Calls the ``DataResponseSerializerProtocol`` overload: within this generic context it is the only one that applies.
    private func dataTask<Serializer: DataResponseSerializerProtocol>(
        using serializer: Serializer, automaticallyCancelling shouldAutomaticallyCancel: Bool
    ) -> DataTask<Serializer.SerializedObject> {
        serializingResponse(using: serializer, automaticallyCancelling: shouldAutomaticallyCancel)
    }
}

extension DownloadRequest {
    /// The download serialized by `serializer` (which may be given as `.data`, `.string` or
    /// `.decodable(of:)`), awaited.
    /// - Parameters:
    ///   - serializer: The serializer.
    ///   - shouldAutomaticallyCancel: Cancel the request when the awaiting task is cancelled;
    ///     `true` by default, as in Alamofire.
    /// - Returns: The task to await.
    public func serializingDownload<Serializer: ResponseSerializer>(
        using serializer: Serializer, automaticallyCancelling shouldAutomaticallyCancel: Bool = true
    ) -> DownloadTask<Serializer.SerializedObject> {
        downloadTask(using: serializer, automaticallyCancelling: shouldAutomaticallyCancel)
    }

    /// Calls the ``DownloadResponseSerializerProtocol`` overload: within this generic context it is the only one that applies.
    private func downloadTask<Serializer: DownloadResponseSerializerProtocol>(
        using serializer: Serializer, automaticallyCancelling shouldAutomaticallyCancel: Bool
    ) -> DownloadTask<Serializer.SerializedObject> {
        serializingDownload(using: serializer, automaticallyCancelling: shouldAutomaticallyCancel)
    }
}
