#if FullFoundation
public import Foundation
#else
public import FoundationEssentials
#endif
public import Dispatch
import Synchronization

/// Sends every event to each of its monitors, on that monitor's own queue.
///
/// Events are posted straight to each monitor's queue from the thread that produced them, in
/// the order they happened (Alamofire hops through ``queue`` first; one hop per event is enough
/// to keep each monitor's order, and a second one was a thread wake-up per event per request).
/// ``AlamofireNotifications`` receives only the eight events it posts, and receives them at
/// once, on the thread that produced them (see its documentation).
public final class CompositeEventMonitor: EventMonitor {
    /// A serial queue owned by the monitor (Alamofire's; events do not pass through it).
    public let queue = DispatchQueue(label: "org.lariat.compositeEventMonitor")
    private let storage: Mutex<[any EventMonitor]>

    /// The monitors events go to, in order.
    public var monitors: [any EventMonitor] {
        get { storage.withLock { $0 } }
        set {
            storage.withLock { $0 = newValue }
            everyEvent.store(Self.wantsEveryEvent(newValue), ordering: .relaxed)
        }
    }
    private let everyEvent: Atomic<Bool>

    /// Creates a monitor sending each event to `monitors`, in order.
    init(monitors: [any EventMonitor]) {
        storage = Mutex(monitors)
        everyEvent = Atomic(Self.wantsEveryEvent(monitors))
    }

    /// Whether any monitor wants events besides the eight ``AlamofireNotifications`` posts: when
    /// none does, the other events are not even built (a closure each, and for body chunks a copy
    /// of every chunk). One atomic load: it is read for every event of every request.
    var wantsEveryEvent: Bool { everyEvent.load(ordering: .relaxed) }

    private static func wantsEveryEvent(_ monitors: [any EventMonitor]) -> Bool {
        monitors.contains { !($0 is AlamofireNotifications) }
    }

    /// Posts `event` to every monitor on its queue; `notified`: one of the events
    /// ``AlamofireNotifications`` posts.
    func performEvent(notified: Bool = false, _ event: @escaping @Sendable (any EventMonitor) -> Void) {
        for monitor in storage.withLock({ $0 }) {
            if monitor is AlamofireNotifications {
                if notified { event(monitor) }
            } else {
                monitor.queue.async { event(monitor) }
            }
        }
    }

    /// Posts notification `name` about `request` once per ``AlamofireNotifications`` among the
    /// monitors (what `performEvent(notified: true)` does with an event it posts), ignoring the
    /// others: for callers that checked no other monitor wants the event.
    func postNotification(_ name: Notification.Name, for request: Request) {
        for monitor in storage.withLock({ $0 }) {
            if let notifications = monitor as? AlamofireNotifications { notifications.post(name, request) }
        }
    }

    /// Sends the event to every monitor.
    public func urlSession(_ session: URLSession, didBecomeInvalidWithError error: (any Error)?) {
        performEvent { $0.urlSession(session, didBecomeInvalidWithError: error) }
    }

    /// Sends the event to every monitor.
    public func urlSession(_ session: URLSession, task: URLSessionTask, didReceive challenge: URLAuthenticationChallenge) {
        performEvent { $0.urlSession(session, task: task, didReceive: challenge) }
    }

    /// Sends the event to every monitor.
    public func urlSession(_ session: URLSession, task: URLSessionTask, didSendBodyData bytesSent: Int64, totalBytesSent: Int64, totalBytesExpectedToSend: Int64) {
        performEvent { $0.urlSession(session, task: task, didSendBodyData: bytesSent, totalBytesSent: totalBytesSent, totalBytesExpectedToSend: totalBytesExpectedToSend) }
    }

    /// Sends the event to every monitor.
    public func urlSession(_ session: URLSession, taskNeedsNewBodyStream task: URLSessionTask) {
        performEvent { $0.urlSession(session, taskNeedsNewBodyStream: task) }
    }

    /// Sends the event to every monitor.
    public func urlSession(_ session: URLSession, task: URLSessionTask, willPerformHTTPRedirection response: HTTPURLResponse, newRequest request: URLRequest) {
        performEvent { $0.urlSession(session, task: task, willPerformHTTPRedirection: response, newRequest: request) }
    }

    /// Sends the event to every monitor.
    public func urlSession(_ session: URLSession, task: URLSessionTask, didFinishCollecting metrics: URLSessionTaskMetrics) {
        performEvent { $0.urlSession(session, task: task, didFinishCollecting: metrics) }
    }

    /// Sends the event to every monitor.
    public func urlSession(_ session: URLSession, task: URLSessionTask, didCompleteWithError error: (any Error)?) {
        performEvent { $0.urlSession(session, task: task, didCompleteWithError: error) }
    }

    /// Sends the event to every monitor.
    public func urlSession(_ session: URLSession, taskIsWaitingForConnectivity task: URLSessionTask) {
        performEvent { $0.urlSession(session, taskIsWaitingForConnectivity: task) }
    }

    /// Sends the event to every monitor.
    public func urlSession(_ session: URLSession, dataTask: URLSessionDataTask, didReceive response: URLResponse) {
        performEvent { $0.urlSession(session, dataTask: dataTask, didReceive: response) }
    }

    /// Sends the event to every monitor.
    public func urlSession(_ session: URLSession, dataTask: URLSessionDataTask, didReceive data: Data) {
        performEvent { $0.urlSession(session, dataTask: dataTask, didReceive: data) }
    }

    /// Sends the event to every monitor.
    public func urlSession(_ session: URLSession, dataTask: URLSessionDataTask, willCacheResponse proposedResponse: CachedURLResponse) {
        performEvent { $0.urlSession(session, dataTask: dataTask, willCacheResponse: proposedResponse) }
    }

    /// Sends the event to every monitor.
    public func urlSession(_ session: URLSession, downloadTask: URLSessionDownloadTask, didResumeAtOffset fileOffset: Int64, expectedTotalBytes: Int64) {
        performEvent { $0.urlSession(session, downloadTask: downloadTask, didResumeAtOffset: fileOffset, expectedTotalBytes: expectedTotalBytes) }
    }

    /// Sends the event to every monitor.
    public func urlSession(_ session: URLSession, downloadTask: URLSessionDownloadTask, didWriteData bytesWritten: Int64, totalBytesWritten: Int64, totalBytesExpectedToWrite: Int64) {
        performEvent { $0.urlSession(session, downloadTask: downloadTask, didWriteData: bytesWritten, totalBytesWritten: totalBytesWritten, totalBytesExpectedToWrite: totalBytesExpectedToWrite) }
    }

    /// Sends the event to every monitor.
    public func urlSession(_ session: URLSession, downloadTask: URLSessionDownloadTask, didFinishDownloadingTo location: URL) {
        performEvent { $0.urlSession(session, downloadTask: downloadTask, didFinishDownloadingTo: location) }
    }

    /// Sends the event to every monitor.
    public func request(_ request: Request, didCreateInitialURLRequest urlRequest: URLRequest) {
        performEvent { $0.request(request, didCreateInitialURLRequest: urlRequest) }
    }

    /// Sends the event to every monitor.
    public func request(_ request: Request, didFailToCreateURLRequestWithError error: AFError) {
        performEvent { $0.request(request, didFailToCreateURLRequestWithError: error) }
    }

    /// Sends the event to every monitor.
    public func request(_ request: Request, didAdaptInitialRequest initialRequest: URLRequest, to adaptedRequest: URLRequest) {
        performEvent { $0.request(request, didAdaptInitialRequest: initialRequest, to: adaptedRequest) }
    }

    /// Sends the event to every monitor.
    public func request(_ request: Request, didFailToAdaptURLRequest initialRequest: URLRequest, withError error: AFError) {
        performEvent { $0.request(request, didFailToAdaptURLRequest: initialRequest, withError: error) }
    }

    /// Sends the event to every monitor.
    public func request(_ request: Request, didCreateURLRequest urlRequest: URLRequest) {
        performEvent { $0.request(request, didCreateURLRequest: urlRequest) }
    }

    /// Sends the event to every monitor.
    public func request(_ request: Request, didCreateTask task: URLSessionTask) {
        performEvent { $0.request(request, didCreateTask: task) }
    }

    /// Sends the event to every monitor.
    public func request(_ request: Request, didGatherMetrics metrics: URLSessionTaskMetrics) {
        performEvent { $0.request(request, didGatherMetrics: metrics) }
    }

    /// Sends the event to every monitor.
    public func request(_ request: Request, didFailTask task: URLSessionTask, earlyWithError error: AFError) {
        performEvent { $0.request(request, didFailTask: task, earlyWithError: error) }
    }

    /// Sends the event to every monitor.
    public func request(_ request: Request, didCompleteTask task: URLSessionTask, with error: AFError?) {
        performEvent(notified: true) { $0.request(request, didCompleteTask: task, with: error) }
    }

    /// Sends the event to every monitor.
    public func requestIsRetrying(_ request: Request) {
        performEvent { $0.requestIsRetrying(request) }
    }

    /// Sends the event to every monitor.
    public func requestDidFinish(_ request: Request) {
        performEvent(notified: true) { $0.requestDidFinish(request) }
    }

    /// Sends the event to every monitor.
    public func requestDidResume(_ request: Request) {
        performEvent(notified: true) { $0.requestDidResume(request) }
    }

    /// Sends the event to every monitor.
    public func request(_ request: Request, didResumeTask task: URLSessionTask) {
        performEvent(notified: true) { $0.request(request, didResumeTask: task) }
    }

    /// Sends the event to every monitor.
    public func requestDidSuspend(_ request: Request) {
        performEvent(notified: true) { $0.requestDidSuspend(request) }
    }

    /// Sends the event to every monitor.
    public func request(_ request: Request, didSuspendTask task: URLSessionTask) {
        performEvent(notified: true) { $0.request(request, didSuspendTask: task) }
    }

    /// Sends the event to every monitor.
    public func requestDidCancel(_ request: Request) {
        performEvent(notified: true) { $0.requestDidCancel(request) }
    }

    /// Sends the event to every monitor.
    public func request(_ request: Request, didCancelTask task: URLSessionTask) {
        performEvent(notified: true) { $0.request(request, didCancelTask: task) }
    }

    /// Sends the event to every monitor.
    public func request(_ request: DataRequest, didValidateRequest urlRequest: URLRequest?, response: HTTPURLResponse, data: Data?, withResult result: Request.ValidationResult) {
        performEvent { $0.request(request, didValidateRequest: urlRequest, response: response, data: data, withResult: result) }
    }

    /// Sends the event to every monitor.
    public func request(_ request: DataRequest, didParseResponse response: DataResponse<Data?, AFError>) {
        performEvent { $0.request(request, didParseResponse: response) }
    }

    /// Sends the event to every monitor.
    public func request<Value: Sendable>(_ request: DataRequest, didParseResponse response: DataResponse<Value, AFError>) {
        performEvent { $0.request(request, didParseResponse: response) }
    }

    /// Sends the event to every monitor.
    public func request(_ request: DataStreamRequest, didValidateRequest urlRequest: URLRequest?, response: HTTPURLResponse, withResult result: Request.ValidationResult) {
        performEvent { $0.request(request, didValidateRequest: urlRequest, response: response, withResult: result) }
    }

    /// Sends the event to every monitor.
    public func request<Value: Sendable>(_ request: DataStreamRequest, didParseStream result: Result<Value, AFError>) {
        performEvent { $0.request(request, didParseStream: result) }
    }

    /// Sends the event to every monitor.
    public func request(_ request: UploadRequest, didCreateUploadable uploadable: UploadRequest.Uploadable) {
        performEvent { $0.request(request, didCreateUploadable: uploadable) }
    }

    /// Sends the event to every monitor.
    public func request(_ request: UploadRequest, didFailToCreateUploadableWithError error: AFError) {
        performEvent { $0.request(request, didFailToCreateUploadableWithError: error) }
    }

    /// Sends the event to every monitor.
    public func request(_ request: UploadRequest, didProvideInputStream stream: InputStream) {
        #if FullFoundation
        // Foundation's InputStream is not Sendable (Client's own stand-in is); each monitor
        // receives the same stream, as Alamofire's do, and only reads it if it chooses to.
        nonisolated(unsafe) let stream = stream
        #endif
        performEvent { $0.request(request, didProvideInputStream: stream) }
    }

    /// Sends the event to every monitor.
    public func request(_ request: DownloadRequest, didFinishDownloadingUsing task: URLSessionTask, with result: Result<URL, AFError>) {
        performEvent { $0.request(request, didFinishDownloadingUsing: task, with: result) }
    }

    /// Sends the event to every monitor.
    public func request(_ request: DownloadRequest, didCreateDestinationURL url: URL) {
        performEvent { $0.request(request, didCreateDestinationURL: url) }
    }

    /// Sends the event to every monitor.
    public func request(_ request: DownloadRequest, didValidateRequest urlRequest: URLRequest?, response: HTTPURLResponse, fileURL: URL?, withResult result: Request.ValidationResult) {
        performEvent { $0.request(request, didValidateRequest: urlRequest, response: response, fileURL: fileURL, withResult: result) }
    }

    /// Sends the event to every monitor.
    public func request(_ request: DownloadRequest, didParseResponse response: DownloadResponse<URL?, AFError>) {
        performEvent { $0.request(request, didParseResponse: response) }
    }

    /// Sends the event to every monitor.
    public func request<Value: Sendable>(_ request: DownloadRequest, didParseResponse response: DownloadResponse<Value, AFError>) {
        performEvent { $0.request(request, didParseResponse: response) }
    }
}
