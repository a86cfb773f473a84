#if FullFoundation
public import Foundation
#else
public import FoundationEssentials
#endif
public import Dispatch

/// An ``EventMonitor`` that calls a closure for each event, if one is set.
///
/// `open`, as in Alamofire. `@unchecked Sendable` because its closure properties are mutable:
/// set them before the monitor is handed to a `Session` or request (Alamofire's rule too); after
/// that they are only read, on ``queue``.
open class ClosureEventMonitor: EventMonitor, @unchecked Sendable {
    /// Called for `urlSession`: the session was invalidated.
    open var sessionDidBecomeInvalidWithError: ((URLSession, (any Error)?) -> Void)?
    /// Called for `urlSession`: the task received an authentication challenge.
    open var taskDidReceiveChallenge: ((URLSession, URLSessionTask, URLAuthenticationChallenge) -> Void)?
    /// Called for `urlSession`: request body bytes were written to the connection.
    open var taskDidSendBodyData: ((URLSession, URLSessionTask, Int64, Int64, Int64) -> Void)?
    /// Called for `urlSession`: the task needs a new body stream (a retried stream upload).
    open var taskNeedNewBodyStream: ((URLSession, URLSessionTask) -> Void)?
    /// Called for `urlSession`: the task is about to follow a redirect to `request`.
    open var taskWillPerformHTTPRedirection: ((URLSession, URLSessionTask, HTTPURLResponse, URLRequest) -> Void)?
    /// Called for `urlSession`: the task's metrics are complete.
    open var taskDidFinishCollectingMetrics: ((URLSession, URLSessionTask, URLSessionTaskMetrics) -> Void)?
    /// Called for `urlSession`: the task ended, with `error` if it failed.
    open var taskDidComplete: ((URLSession, URLSessionTask, (any Error)?) -> Void)?
    /// Called for `urlSession`: the task waits for connectivity (never sent by Lariat's transport, which fails at once).
    open var taskIsWaitingForConnectivity: ((URLSession, URLSessionTask) -> Void)?
    /// Called for `urlSession`: the data task received the response head.
    open var dataTaskDidReceiveResponse: ((URLSession, URLSessionDataTask, URLResponse) -> Void)?
    /// Called for `urlSession`: the data task received body bytes (one event per chunk read from the connection).
    open var dataTaskDidReceiveData: ((URLSession, URLSessionDataTask, Data) -> Void)?
    /// Called for `urlSession`: the data task's response is about to be cached.
    open var dataTaskWillCacheResponse: ((URLSession, URLSessionDataTask, CachedURLResponse) -> Void)?
    /// Called for `urlSession`: the download task resumed at `fileOffset` of `expectedTotalBytes`.
    open var downloadTaskDidResumeAtOffset: ((URLSession, URLSessionDownloadTask, Int64, Int64) -> Void)?
    /// Called for `urlSession`: the download task wrote bytes to its file.
    open var downloadTaskDidWriteData: ((URLSession, URLSessionDownloadTask, Int64, Int64, Int64) -> Void)?
    /// Called for `urlSession`: the download task finished writing its file at `location`.
    open var downloadTaskDidFinishDownloadingToURL: ((URLSession, URLSessionDownloadTask, URL) -> Void)?
    /// Called for `request`: the request built its initial URLRequest (before adapters).
    open var requestDidCreateInitialURLRequest: ((Request, URLRequest) -> Void)?
    /// Called for `request`: building the URLRequest failed.
    open var requestDidFailToCreateURLRequestWithError: ((Request, AFError) -> Void)?
    /// Called for `request`: an adapter turned `initialRequest` into `adaptedRequest`.
    open var requestDidAdaptInitialRequestToAdaptedRequest: ((Request, URLRequest, URLRequest) -> Void)?
    /// Called for `request`: an adapter failed.
    open var requestDidFailToAdaptURLRequestWithError: ((Request, URLRequest, AFError) -> Void)?
    /// Called for `request`: the final URLRequest of an attempt (after adapters) was created.
    open var requestDidCreateURLRequest: ((Request, URLRequest) -> Void)?
    /// Called for `request`: the attempt's task was created.
    open var requestDidCreateTask: ((Request, URLSessionTask) -> Void)?
    /// Called for `request`: the attempt's metrics were gathered.
    open var requestDidGatherMetrics: ((Request, URLSessionTaskMetrics) -> Void)?
    /// Called for `request`: the task failed before it ran (Alamofire: a failed certificate pinning).
    open var requestDidFailTaskEarlyWithError: ((Request, URLSessionTask, AFError) -> Void)?
    /// Called for `request`: the attempt's task completed, with `error` if it failed (validators already ran).
    open var requestDidCompleteTaskWithError: ((Request, URLSessionTask, AFError?) -> Void)?
    /// Called for `requestIsRetrying`: a retrier decided to retry the request; the next attempt follows.
    open var requestIsRetrying: ((Request) -> Void)?
    /// Called for `requestDidFinish`: the request finished: no further attempt follows (response serializers run next).
    open var requestDidFinish: ((Request) -> Void)?
    /// Called for `requestDidResume`: `resume()` resumed the request.
    open var requestDidResume: ((Request) -> Void)?
    /// Called for `request`: the request's task was resumed (handed to the connection pool).
    open var requestDidResumeTask: ((Request, URLSessionTask) -> Void)?
    /// Called for `requestDidSuspend`: `suspend()` suspended the request.
    open var requestDidSuspend: ((Request) -> Void)?
    /// Called for `request`: the request's task was suspended (held unsent).
    open var requestDidSuspendTask: ((Request, URLSessionTask) -> Void)?
    /// Called for `requestDidCancel`: `cancel()` cancelled the request.
    open var requestDidCancel: ((Request) -> Void)?
    /// Called for `request`: the request's task was cancelled.
    open var requestDidCancelTask: ((Request, URLSessionTask) -> Void)?
    /// Called for `request`: a data request's validation closure ran.
    open var requestDidValidateRequestResponseDataWithResult: ((DataRequest, URLRequest?, HTTPURLResponse, Data?, Request.ValidationResult) -> Void)?
    /// Called for `request`: a data request's raw response was produced by `response(queue:completionHandler:)`.
    open var requestDidParseResponse: ((DataRequest, DataResponse<Data?, AFError>) -> Void)?
    /// Called for `request`: a data stream request's validation closure ran.
    open var requestDidValidateRequestResponseWithResult: ((DataStreamRequest, URLRequest?, HTTPURLResponse, Request.ValidationResult) -> Void)?
    /// Called for `request`: an upload request produced its uploadable.
    open var requestDidCreateUploadable: ((UploadRequest, UploadRequest.Uploadable) -> Void)?
    /// Called for `request`: an upload request could not produce its uploadable.
    open var requestDidFailToCreateUploadableWithError: ((UploadRequest, AFError) -> Void)?
    /// Called for `request`: an upload request handed its input stream to the transport.
    open var requestDidProvideInputStream: ((UploadRequest, InputStream) -> Void)?
    /// Called for `request`: a download finished: its file was moved to the destination, or that failed.
    open var requestDidFinishDownloadingUsingTaskWithResult: ((DownloadRequest, URLSessionTask, Result<URL, AFError>) -> Void)?
    /// Called for `request`: a download's destination URL was decided.
    open var requestDidCreateDestinationURL: ((DownloadRequest, URL) -> Void)?
    /// Called for `request`: a download request's validation closure ran.
    open var requestDidValidateRequestResponseFileURLWithResult: ((DownloadRequest, URLRequest?, HTTPURLResponse, URL?, Request.ValidationResult) -> Void)?
    /// Called for `request`: a download's raw response was produced by `response(queue:completionHandler:)`.
    open var requestDidParseDownloadResponse: ((DownloadRequest, DownloadResponse<URL?, AFError>) -> Void)?

    /// The queue the closures are called on.
    public let queue: DispatchQueue

    /// Creates a monitor with no closures set.
    /// - Parameter queue: Where the closures are called; `.main` by default.
    public init(queue: DispatchQueue = .main) {
        self.queue = queue
    }

    /// Calls ``sessionDidBecomeInvalidWithError``.
    open func urlSession(_ session: URLSession, didBecomeInvalidWithError error: (any Error)?) {
        sessionDidBecomeInvalidWithError?(session, error)
    }

    /// Calls ``taskDidReceiveChallenge``.
    open func urlSession(_ session: URLSession, task: URLSessionTask, didReceive challenge: URLAuthenticationChallenge) {
        taskDidReceiveChallenge?(session, task, challenge)
    }

    /// Calls ``taskDidSendBodyData``.
    open func urlSession(_ session: URLSession, task: URLSessionTask, didSendBodyData bytesSent: Int64, totalBytesSent: Int64, totalBytesExpectedToSend: Int64) {
        taskDidSendBodyData?(session, task, bytesSent, totalBytesSent, totalBytesExpectedToSend)
    }

    /// Calls ``taskNeedNewBodyStream``.
    open func urlSession(_ session: URLSession, taskNeedsNewBodyStream task: URLSessionTask) {
        taskNeedNewBodyStream?(session, task)
    }

    /// Calls ``taskWillPerformHTTPRedirection``.
    open func urlSession(_ session: URLSession, task: URLSessionTask, willPerformHTTPRedirection response: HTTPURLResponse, newRequest request: URLRequest) {
        taskWillPerformHTTPRedirection?(session, task, response, request)
    }

    /// Calls ``taskDidFinishCollectingMetrics``.
    open func urlSession(_ session: URLSession, task: URLSessionTask, didFinishCollecting metrics: URLSessionTaskMetrics) {
        taskDidFinishCollectingMetrics?(session, task, metrics)
    }

    /// Calls ``taskDidComplete``.
    open func urlSession(_ session: URLSession, task: URLSessionTask, didCompleteWithError error: (any Error)?) {
        taskDidComplete?(session, task, error)
    }

    /// Calls ``taskIsWaitingForConnectivity``.
    open func urlSession(_ session: URLSession, taskIsWaitingForConnectivity task: URLSessionTask) {
        taskIsWaitingForConnectivity?(session, task)
    }

    /// Calls ``dataTaskDidReceiveResponse``.
    open func urlSession(_ session: URLSession, dataTask: URLSessionDataTask, didReceive response: URLResponse) {
        dataTaskDidReceiveResponse?(session, dataTask, response)
    }

    /// Calls ``dataTaskDidReceiveData``.
    open func urlSession(_ session: URLSession, dataTask: URLSessionDataTask, didReceive data: Data) {
        dataTaskDidReceiveData?(session, dataTask, data)
    }

    /// Calls ``dataTaskWillCacheResponse``.
    open func urlSession(_ session: URLSession, dataTask: URLSessionDataTask, willCacheResponse proposedResponse: CachedURLResponse) {
        dataTaskWillCacheResponse?(session, dataTask, proposedResponse)
    }

    /// Calls ``downloadTaskDidResumeAtOffset``.
    open func urlSession(_ session: URLSession, downloadTask: URLSessionDownloadTask, didResumeAtOffset fileOffset: Int64, expectedTotalBytes: Int64) {
        downloadTaskDidResumeAtOffset?(session, downloadTask, fileOffset, expectedTotalBytes)
    }

    /// Calls ``downloadTaskDidWriteData``.
    open func urlSession(_ session: URLSession, downloadTask: URLSessionDownloadTask, didWriteData bytesWritten: Int64, totalBytesWritten: Int64, totalBytesExpectedToWrite: Int64) {
        downloadTaskDidWriteData?(session, downloadTask, bytesWritten, totalBytesWritten, totalBytesExpectedToWrite)
    }

    /// Calls ``downloadTaskDidFinishDownloadingToURL``.
    open func urlSession(_ session: URLSession, downloadTask: URLSessionDownloadTask, didFinishDownloadingTo location: URL) {
        downloadTaskDidFinishDownloadingToURL?(session, downloadTask, location)
    }

    /// Calls ``requestDidCreateInitialURLRequest``.
    open func request(_ request: Request, didCreateInitialURLRequest urlRequest: URLRequest) {
        requestDidCreateInitialURLRequest?(request, urlRequest)
    }

    /// Calls ``requestDidFailToCreateURLRequestWithError``.
    open func request(_ request: Request, didFailToCreateURLRequestWithError error: AFError) {
        requestDidFailToCreateURLRequestWithError?(request, error)
    }

    /// Calls ``requestDidAdaptInitialRequestToAdaptedRequest``.
    open func request(_ request: Request, didAdaptInitialRequest initialRequest: URLRequest, to adaptedRequest: URLRequest) {
        requestDidAdaptInitialRequestToAdaptedRequest?(request, initialRequest, adaptedRequest)
    }

    /// Calls ``requestDidFailToAdaptURLRequestWithError``.
    open func request(_ request: Request, didFailToAdaptURLRequest initialRequest: URLRequest, withError error: AFError) {
        requestDidFailToAdaptURLRequestWithError?(request, initialRequest, error)
    }

    /// Calls ``requestDidCreateURLRequest``.
    open func request(_ request: Request, didCreateURLRequest urlRequest: URLRequest) {
        requestDidCreateURLRequest?(request, urlRequest)
    }

    /// Calls ``requestDidCreateTask``.
    open func request(_ request: Request, didCreateTask task: URLSessionTask) {
        requestDidCreateTask?(request, task)
    }

    /// Calls ``requestDidGatherMetrics``.
    open func request(_ request: Request, didGatherMetrics metrics: URLSessionTaskMetrics) {
        requestDidGatherMetrics?(request, metrics)
    }

    /// Calls ``requestDidFailTaskEarlyWithError``.
    open func request(_ request: Request, didFailTask task: URLSessionTask, earlyWithError error: AFError) {
        requestDidFailTaskEarlyWithError?(request, task, error)
    }

    /// Calls ``requestDidCompleteTaskWithError``.
    open func request(_ request: Request, didCompleteTask task: URLSessionTask, with error: AFError?) {
        requestDidCompleteTaskWithError?(request, task, error)
    }

    /// Calls ``requestIsRetrying``.
    open func requestIsRetrying(_ request: Request) {
        requestIsRetrying?(request)
    }

    /// Calls ``requestDidFinish``.
    open func requestDidFinish(_ request: Request) {
        requestDidFinish?(request)
    }

    /// Calls ``requestDidResume``.
    open func requestDidResume(_ request: Request) {
        requestDidResume?(request)
    }

    /// Calls ``requestDidResumeTask``.
    open func request(_ request: Request, didResumeTask task: URLSessionTask) {
        requestDidResumeTask?(request, task)
    }

    /// Calls ``requestDidSuspend``.
    open func requestDidSuspend(_ request: Request) {
        requestDidSuspend?(request)
    }

    /// Calls ``requestDidSuspendTask``.
    open func request(_ request: Request, didSuspendTask task: URLSessionTask) {
        requestDidSuspendTask?(request, task)
    }

    /// Calls ``requestDidCancel``.
    open func requestDidCancel(_ request: Request) {
        requestDidCancel?(request)
    }

    /// Calls ``requestDidCancelTask``.
    open func request(_ request: Request, didCancelTask task: URLSessionTask) {
        requestDidCancelTask?(request, task)
    }

    /// Calls ``requestDidValidateRequestResponseDataWithResult``.
    open func request(_ request: DataRequest, didValidateRequest urlRequest: URLRequest?, response: HTTPURLResponse, data: Data?, withResult result: Request.ValidationResult) {
        requestDidValidateRequestResponseDataWithResult?(request, urlRequest, response, data, result)
    }

    /// Calls ``requestDidParseResponse``.
    open func request(_ request: DataRequest, didParseResponse response: DataResponse<Data?, AFError>) {
        requestDidParseResponse?(request, response)
    }

    /// Calls ``requestDidValidateRequestResponseWithResult``.
    public func request(_ request: DataStreamRequest, didValidateRequest urlRequest: URLRequest?, response: HTTPURLResponse, withResult result: Request.ValidationResult) {
        requestDidValidateRequestResponseWithResult?(request, urlRequest, response, result)
    }

    /// Calls ``requestDidCreateUploadable``.
    open func request(_ request: UploadRequest, didCreateUploadable uploadable: UploadRequest.Uploadable) {
        requestDidCreateUploadable?(request, uploadable)
    }

    /// Calls ``requestDidFailToCreateUploadableWithError``.
    open func request(_ request: UploadRequest, didFailToCreateUploadableWithError error: AFError) {
        requestDidFailToCreateUploadableWithError?(request, error)
    }

    /// Calls ``requestDidProvideInputStream``.
    open func request(_ request: UploadRequest, didProvideInputStream stream: InputStream) {
        requestDidProvideInputStream?(request, stream)
    }

    /// Calls ``requestDidFinishDownloadingUsingTaskWithResult``.
    open func request(_ request: DownloadRequest, didFinishDownloadingUsing task: URLSessionTask, with result: Result<URL, AFError>) {
        requestDidFinishDownloadingUsingTaskWithResult?(request, task, result)
    }

    /// Calls ``requestDidCreateDestinationURL``.
    open func request(_ request: DownloadRequest, didCreateDestinationURL url: URL) {
        requestDidCreateDestinationURL?(request, url)
    }

    /// Calls ``requestDidValidateRequestResponseFileURLWithResult``.
    open func request(_ request: DownloadRequest, didValidateRequest urlRequest: URLRequest?, response: HTTPURLResponse, fileURL: URL?, withResult result: Request.ValidationResult) {
        requestDidValidateRequestResponseFileURLWithResult?(request, urlRequest, response, fileURL, result)
    }

    /// Calls ``requestDidParseDownloadResponse``.
    open func request(_ request: DownloadRequest, didParseResponse response: DownloadResponse<URL?, AFError>) {
        requestDidParseDownloadResponse?(request, response)
    }
}
