#if FullFoundation
public import Foundation
#else
public import FoundationEssentials
#endif
public import Dispatch

// Alamofire's events, in the order they arrive for one request (README "Event monitors"):
//
//   requestDidResume
//   request(_:didCreateInitialURLRequest:) → [didAdaptInitialRequest | didFailToAdaptURLRequest]
//     → request(_:didCreateURLRequest:) → [upload: didCreateUploadable] → request(_:didCreateTask:)
//     → request(_:didResumeTask:) → urlSession(_:dataTask:didReceive: response) → didReceive data…
//     → urlSession(_:task:didCompleteWithError:) → didValidateRequest… → request(_:didCompleteTask:with:)
//   [failed with a retrier that retries: requestIsRetrying, then the attempt again from didCreateInitialURLRequest]
//   requestDidFinish → didParseResponse (one per response handler)
//
// cancel(): requestDidCancel, then request(_:didCancelTask:) when a task exists; suspend() and
// resume() likewise. A followed redirect or answered challenge reports willPerformHTTPRedirection
// or didReceive challenge after the hop's didCompleteWithError, then the next hop's task events;
// didFinishCollecting and didGatherMetrics come once per attempt, before its didCompleteWithError.

/// Receives a session's request and task events, each on the monitor's ``queue``.
///
/// Every event has an empty default implementation: implement only those you need. Pass
/// monitors to `Session(eventMonitors:)` or to ``Request/eventMonitor(_:)``.
public protocol EventMonitor: Sendable {
    /// The queue the monitor's events are called on; `.main` by default, as in Alamofire.
    var queue: DispatchQueue { get }

    /// The session was invalidated.
    func urlSession(_ session: URLSession, didBecomeInvalidWithError error: (any Error)?)

    /// The task received an authentication challenge (a 401 Lariat answers, or delivers when it has no credential).
    func urlSession(_ session: URLSession, task: URLSessionTask, didReceive challenge: URLAuthenticationChallenge)

    /// Request body bytes were written to the connection.
    func urlSession(_ session: URLSession, task: URLSessionTask, didSendBodyData bytesSent: Int64, totalBytesSent: Int64, totalBytesExpectedToSend: Int64)

    /// The task needs a new body stream (a retried stream upload).
    func urlSession(_ session: URLSession, taskNeedsNewBodyStream task: URLSessionTask)

    /// The task is about to follow a redirect to `request`.
    func urlSession(_ session: URLSession, task: URLSessionTask, willPerformHTTPRedirection response: HTTPURLResponse, newRequest request: URLRequest)

    /// The task's metrics are complete.
    func urlSession(_ session: URLSession, task: URLSessionTask, didFinishCollecting metrics: URLSessionTaskMetrics)

    /// The task ended, with `error` if it failed.
    func urlSession(_ session: URLSession, task: URLSessionTask, didCompleteWithError error: (any Error)?)

    /// The task waits for connectivity (never sent by Lariat's transport, which fails at once).
    func urlSession(_ session: URLSession, taskIsWaitingForConnectivity task: URLSessionTask)

    /// The data task received the response head.
    func urlSession(_ session: URLSession, dataTask: URLSessionDataTask, didReceive response: URLResponse)

    /// The data task received body bytes (one event per chunk read from the connection).
    func urlSession(_ session: URLSession, dataTask: URLSessionDataTask, didReceive data: Data)

    /// The data task's response is about to be stored in the cache.
    func urlSession(_ session: URLSession, dataTask: URLSessionDataTask, willCacheResponse proposedResponse: CachedURLResponse)

    /// The download task resumed at `fileOffset` of `expectedTotalBytes`.
    func urlSession(_ session: URLSession, downloadTask: URLSessionDownloadTask, didResumeAtOffset fileOffset: Int64, expectedTotalBytes: Int64)

    /// The download task wrote bytes to its file.
    func urlSession(_ session: URLSession, downloadTask: URLSessionDownloadTask, didWriteData bytesWritten: Int64, totalBytesWritten: Int64, totalBytesExpectedToWrite: Int64)

    /// The download task finished writing its file at `location`.
    func urlSession(_ session: URLSession, downloadTask: URLSessionDownloadTask, didFinishDownloadingTo location: URL)

    /// The request built its initial URLRequest (before adapters).
    func request(_ request: Request, didCreateInitialURLRequest urlRequest: URLRequest)

    /// Building the URLRequest failed.
    func request(_ request: Request, didFailToCreateURLRequestWithError error: AFError)

    /// An adapter turned `initialRequest` into `adaptedRequest`.
    func request(_ request: Request, didAdaptInitialRequest initialRequest: URLRequest, to adaptedRequest: URLRequest)

    /// An adapter failed.
    func request(_ request: Request, didFailToAdaptURLRequest initialRequest: URLRequest, withError error: AFError)

    /// The final URLRequest of an attempt (after adapters) was created.
    func request(_ request: Request, didCreateURLRequest urlRequest: URLRequest)

    /// The attempt's task was created.
    func request(_ request: Request, didCreateTask task: URLSessionTask)

    /// The attempt's metrics were gathered.
    func request(_ request: Request, didGatherMetrics metrics: URLSessionTaskMetrics)

    /// The task failed before it ran (Alamofire: a failed certificate pinning).
    func request(_ request: Request, didFailTask task: URLSessionTask, earlyWithError error: AFError)

    /// The attempt's task completed, with `error` if it failed (validators already ran).
    func request(_ request: Request, didCompleteTask task: URLSessionTask, with error: AFError?)

    /// A retrier decided to retry the request; the next attempt follows.
    func requestIsRetrying(_ request: Request)

    /// The request finished: no further attempt follows (response serializers run next).
    func requestDidFinish(_ request: Request)

    /// `resume()` resumed the request.
    func requestDidResume(_ request: Request)

    /// The request's task was resumed (handed to the connection pool).
    func request(_ request: Request, didResumeTask task: URLSessionTask)

    /// `suspend()` suspended the request.
    func requestDidSuspend(_ request: Request)

    /// The request's task was suspended (held unsent).
    func request(_ request: Request, didSuspendTask task: URLSessionTask)

    /// `cancel()` cancelled the request.
    func requestDidCancel(_ request: Request)

    /// The request's task was cancelled.
    func request(_ request: Request, didCancelTask task: URLSessionTask)

    /// A data request's validation closure ran.
    func request(_ request: DataRequest, didValidateRequest urlRequest: URLRequest?, response: HTTPURLResponse, data: Data?, withResult result: Request.ValidationResult)

    /// A data request's raw response was produced by `response(queue:completionHandler:)`.
    func request(_ request: DataRequest, didParseResponse response: DataResponse<Data?, AFError>)

    /// A data request's response was serialized.
    func request<Value: Sendable>(_ request: DataRequest, didParseResponse response: DataResponse<Value, AFError>)

    /// A data stream request's validation closure ran.
    func request(_ request: DataStreamRequest, didValidateRequest urlRequest: URLRequest?, response: HTTPURLResponse, withResult result: Request.ValidationResult)

    /// A data stream request's serializer produced a value (or failed) for a chunk.
    func request<Value: Sendable>(_ request: DataStreamRequest, didParseStream result: Result<Value, AFError>)

    /// An upload request produced its uploadable.
    func request(_ request: UploadRequest, didCreateUploadable uploadable: UploadRequest.Uploadable)

    /// An upload request could not produce its uploadable.
    func request(_ request: UploadRequest, didFailToCreateUploadableWithError error: AFError)

    /// An upload request handed its input stream to the transport.
    func request(_ request: UploadRequest, didProvideInputStream stream: InputStream)

    /// A download finished: its file was moved to the destination, or that failed.
    func request(_ request: DownloadRequest, didFinishDownloadingUsing task: URLSessionTask, with result: Result<URL, AFError>)

    /// A download's destination URL was decided.
    func request(_ request: DownloadRequest, didCreateDestinationURL url: URL)

    /// A download request's validation closure ran.
    func request(_ request: DownloadRequest, didValidateRequest urlRequest: URLRequest?, response: HTTPURLResponse, fileURL: URL?, withResult result: Request.ValidationResult)

    /// A download's raw response was produced by `response(queue:completionHandler:)`.
    func request(_ request: DownloadRequest, didParseResponse response: DownloadResponse<URL?, AFError>)

    /// A download's response was serialized.
    func request<Value: Sendable>(_ request: DownloadRequest, didParseResponse response: DownloadResponse<Value, AFError>)
}

extension EventMonitor {
    /// `.main`, as in Alamofire.
    public var queue: DispatchQueue { .main }

    /// Does nothing by default.
    public func urlSession(_ session: URLSession, didBecomeInvalidWithError error: (any Error)?) {}

    /// Does nothing by default.
    public func urlSession(_ session: URLSession, task: URLSessionTask, didReceive challenge: URLAuthenticationChallenge) {}

    /// Does nothing by default.
    public func urlSession(_ session: URLSession, task: URLSessionTask, didSendBodyData bytesSent: Int64, totalBytesSent: Int64, totalBytesExpectedToSend: Int64) {}

    /// Does nothing by default.
    public func urlSession(_ session: URLSession, taskNeedsNewBodyStream task: URLSessionTask) {}

    /// Does nothing by default.
    public func urlSession(_ session: URLSession, task: URLSessionTask, willPerformHTTPRedirection response: HTTPURLResponse, newRequest request: URLRequest) {}

    /// Does nothing by default.
    public func urlSession(_ session: URLSession, task: URLSessionTask, didFinishCollecting metrics: URLSessionTaskMetrics) {}

    /// Does nothing by default.
    public func urlSession(_ session: URLSession, task: URLSessionTask, didCompleteWithError error: (any Error)?) {}

    /// Does nothing by default.
    public func urlSession(_ session: URLSession, taskIsWaitingForConnectivity task: URLSessionTask) {}

    /// Does nothing by default.
    public func urlSession(_ session: URLSession, dataTask: URLSessionDataTask, didReceive response: URLResponse) {}

    /// Does nothing by default.
    public func urlSession(_ session: URLSession, dataTask: URLSessionDataTask, didReceive data: Data) {}

    /// Does nothing by default.
    public func urlSession(_ session: URLSession, dataTask: URLSessionDataTask, willCacheResponse proposedResponse: CachedURLResponse) {}

    /// Does nothing by default.
    public func urlSession(_ session: URLSession, downloadTask: URLSessionDownloadTask, didResumeAtOffset fileOffset: Int64, expectedTotalBytes: Int64) {}

    /// Does nothing by default.
    public func urlSession(_ session: URLSession, downloadTask: URLSessionDownloadTask, didWriteData bytesWritten: Int64, totalBytesWritten: Int64, totalBytesExpectedToWrite: Int64) {}

    /// Does nothing by default.
    public func urlSession(_ session: URLSession, downloadTask: URLSessionDownloadTask, didFinishDownloadingTo location: URL) {}

    /// Does nothing by default.
    public func request(_ request: Request, didCreateInitialURLRequest urlRequest: URLRequest) {}

    /// Does nothing by default.
    public func request(_ request: Request, didFailToCreateURLRequestWithError error: AFError) {}

    /// Does nothing by default.
    public func request(_ request: Request, didAdaptInitialRequest initialRequest: URLRequest, to adaptedRequest: URLRequest) {}

    /// Does nothing by default.
    public func request(_ request: Request, didFailToAdaptURLRequest initialRequest: URLRequest, withError error: AFError) {}

    /// Does nothing by default.
    public func request(_ request: Request, didCreateURLRequest urlRequest: URLRequest) {}

    /// Does nothing by default.
    public func request(_ request: Request, didCreateTask task: URLSessionTask) {}

    /// Does nothing by default.
    public func request(_ request: Request, didGatherMetrics metrics: URLSessionTaskMetrics) {}

    /// Does nothing by default.
    public func request(_ request: Request, didFailTask task: URLSessionTask, earlyWithError error: AFError) {}

    /// Does nothing by default.
    public func request(_ request: Request, didCompleteTask task: URLSessionTask, with error: AFError?) {}

    /// Does nothing by default.
    public func requestIsRetrying(_ request: Request) {}

    /// Does nothing by default.
    public func requestDidFinish(_ request: Request) {}

    /// Does nothing by default.
    public func requestDidResume(_ request: Request) {}

    /// Does nothing by default.
    public func request(_ request: Request, didResumeTask task: URLSessionTask) {}

    /// Does nothing by default.
    public func requestDidSuspend(_ request: Request) {}

    /// Does nothing by default.
    public func request(_ request: Request, didSuspendTask task: URLSessionTask) {}

    /// Does nothing by default.
    public func requestDidCancel(_ request: Request) {}

    /// Does nothing by default.
    public func request(_ request: Request, didCancelTask task: URLSessionTask) {}

    /// Does nothing by default.
    public func request(_ request: DataRequest, didValidateRequest urlRequest: URLRequest?, response: HTTPURLResponse, data: Data?, withResult result: Request.ValidationResult) {}

    /// Does nothing by default.
    public func request(_ request: DataRequest, didParseResponse response: DataResponse<Data?, AFError>) {}

    /// Does nothing by default.
    public func request<Value: Sendable>(_ request: DataRequest, didParseResponse response: DataResponse<Value, AFError>) {}

    /// Does nothing by default.
    public func request(_ request: DataStreamRequest, didValidateRequest urlRequest: URLRequest?, response: HTTPURLResponse, withResult result: Request.ValidationResult) {}

    /// Does nothing by default.
    public func request<Value: Sendable>(_ request: DataStreamRequest, didParseStream result: Result<Value, AFError>) {}

    /// Does nothing by default.
    public func request(_ request: UploadRequest, didCreateUploadable uploadable: UploadRequest.Uploadable) {}

    /// Does nothing by default.
    public func request(_ request: UploadRequest, didFailToCreateUploadableWithError error: AFError) {}

    /// Does nothing by default.
    public func request(_ request: UploadRequest, didProvideInputStream stream: InputStream) {}

    /// Does nothing by default.
    public func request(_ request: DownloadRequest, didFinishDownloadingUsing task: URLSessionTask, with result: Result<URL, AFError>) {}

    /// Does nothing by default.
    public func request(_ request: DownloadRequest, didCreateDestinationURL url: URL) {}

    /// Does nothing by default.
    public func request(_ request: DownloadRequest, didValidateRequest urlRequest: URLRequest?, response: HTTPURLResponse, fileURL: URL?, withResult result: Request.ValidationResult) {}

    /// Does nothing by default.
    public func request(_ request: DownloadRequest, didParseResponse response: DownloadResponse<URL?, AFError>) {}

    /// Does nothing by default.
    public func request<Value: Sendable>(_ request: DownloadRequest, didParseResponse response: DownloadResponse<Value, AFError>) {}
}
