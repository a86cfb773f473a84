#if FullFoundation
public import Foundation
#else
public import FoundationEssentials
#endif

/// Alamofire's URLSession delegate, kept so code that creates or subclasses it compiles.
///
/// Alamofire's `SessionDelegate` receives URLSession's callbacks and forwards them to requests
/// and event monitors. Lariat has no URLSession: its transport reports to each request
/// directly and the request reports to the monitors, so nothing calls these methods; they do
/// nothing. Observe requests with an ``EventMonitor`` instead.
///
/// `open`, as in Alamofire; `@unchecked Sendable` because the class is open: it holds only a
/// `let` of a Sendable type.
open class SessionDelegate: @unchecked Sendable {
    /// The file manager Alamofire moves downloads with (Lariat's downloads use their request's).
    let fileManager: FileManager

    /// Creates a delegate.
    /// - Parameter fileManager: `.default` by default.
    public init(fileManager: FileManager = .default) {
        self.fileManager = fileManager
    }

    /// Not called by Lariat (see the type's documentation).
    open func urlSession(_ session: URLSession, didBecomeInvalidWithError error: (any Error)?) {}
    /// Not called by Lariat.
    open func urlSession(_ session: URLSession, task: URLSessionTask, didSendBodyData bytesSent: Int64, totalBytesSent: Int64, totalBytesExpectedToSend: Int64) {}
    /// Not called by Lariat.
    open func urlSession(_ session: URLSession, task: URLSessionTask, needNewBodyStream completionHandler: @escaping (InputStream?) -> Void) {}
    /// Not called by Lariat.
    open func urlSession(_ session: URLSession, task: URLSessionTask, willPerformHTTPRedirection response: HTTPURLResponse, newRequest request: URLRequest, completionHandler: @escaping (URLRequest?) -> Void) {}
    /// Not called by Lariat.
    open func urlSession(_ session: URLSession, task: URLSessionTask, didFinishCollecting metrics: URLSessionTaskMetrics) {}
    /// Not called by Lariat.
    open func urlSession(_ session: URLSession, task: URLSessionTask, didCompleteWithError error: (any Error)?) {}
    /// Not called by Lariat.
    open func urlSession(_ session: URLSession, taskIsWaitingForConnectivity task: URLSessionTask) {}
    /// Not called by Lariat.
    open func urlSession(_ session: URLSession, dataTask: URLSessionDataTask, didReceive response: URLResponse, completionHandler: @escaping @Sendable (URLSession.ResponseDisposition) -> Void) {}
    /// Not called by Lariat.
    open func urlSession(_ session: URLSession, dataTask: URLSessionDataTask, didReceive data: Data) {}
    /// Not called by Lariat.
    open func urlSession(_ session: URLSession, downloadTask: URLSessionDownloadTask, didResumeAtOffset fileOffset: Int64, expectedTotalBytes: Int64) {}
    /// Not called by Lariat.
    open func urlSession(_ session: URLSession, downloadTask: URLSessionDownloadTask, didWriteData bytesWritten: Int64, totalBytesWritten: Int64, totalBytesExpectedToWrite: Int64) {}
    /// Not called by Lariat.
    open func urlSession(_ session: URLSession, downloadTask: URLSessionDownloadTask, didFinishDownloadingTo location: URL) {}
    /// Not called by Lariat.
    open func urlSession(_ session: URLSession, task: URLSessionTask, didReceive challenge: URLAuthenticationChallenge, completionHandler: @escaping (URLSession.AuthChallengeDisposition, URLCredential?) -> Void) {}
    /// Not called by Lariat.
    open func urlSession(_ session: URLSession, dataTask: URLSessionDataTask, willCacheResponse proposedResponse: CachedURLResponse, completionHandler: @escaping (CachedURLResponse?) -> Void) {}
}
