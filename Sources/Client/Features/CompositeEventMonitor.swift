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
    /// The monitors, and how each is reached (decided once, when they are set).
    private let storage: Mutex<(monitors: [any EventMonitor], routes: [MonitorRoute])>

    /// The monitors events go to, in order.
    public var monitors: [any EventMonitor] {
        get { storage.withLock { $0.monitors } }
        set {
            let routes = newValue.map(MonitorRoute.init)
            storage.withLock { $0 = (newValue, routes) }
            wanted.store(Self.wantedEvents(of: routes).rawValue, ordering: .relaxed)
        }
    }
    private let wanted: Atomic<UInt64>

    /// Creates a monitor sending each event to `monitors`, in order.
    init(monitors: [any EventMonitor]) {
        let routes = monitors.map(MonitorRoute.init)
        storage = Mutex((monitors, routes))
        wanted = Atomic(Self.wantedEvents(of: routes).rawValue)
    }

    /// Whether any monitor wants `event` besides ``AlamofireNotifications`` (which hears its
    /// eight through `postNotification` when no other does): when none does, the event is not
    /// even built (a closure, and for body chunks a copy of every chunk). One atomic load: it is
    /// read for every event of every request.
    func wants(_ event: MonitoredEvents) -> Bool {
        MonitoredEvents(rawValue: wanted.load(ordering: .relaxed)).contains(event)
    }

    /// Whether any monitor wants one of `events`.
    func wantsAny(of events: MonitoredEvents) -> Bool {
        !MonitoredEvents(rawValue: wanted.load(ordering: .relaxed)).isDisjoint(with: events)
    }

    /// The events some monitor other than ``AlamofireNotifications`` wants built.
    private static func wantedEvents(of routes: [MonitorRoute]) -> MonitoredEvents {
        routes.reduce(into: []) { $0.formUnion($1.wanted) }
    }

    /// Sends `event`, of kind `kind`, to every monitor that wants it (see `MonitorRoute.deliver`).
    func performEvent(_ kind: MonitoredEvents, _ event: @escaping @Sendable (any EventMonitor) -> Void) {
        for route in storage.withLock({ $0.routes }) { route.deliver(kind, event) }
    }

    /// Posts notification `name` about `request` once per ``AlamofireNotifications`` among the
    /// monitors (what `performEvent` does with an event it posts), ignoring the
    /// others: for callers that checked no other monitor wants the event.
    func postNotification(_ name: Notification.Name, for request: Request) {
        for route in storage.withLock({ $0.routes }) {
            if case .notifications(let notifications) = route.kind { notifications.post(name, request) }
        }
    }

    /// Sends the event to every monitor.
    public func urlSession(_ session: URLSession, didBecomeInvalidWithError error: (any Error)?) {
        performEvent(.sessionDidBecomeInvalid) { $0.urlSession(session, didBecomeInvalidWithError: error) }
    }

    /// Sends the event to every monitor.
    public func urlSession(_ session: URLSession, task: URLSessionTask, didReceive challenge: URLAuthenticationChallenge) {
        performEvent(.taskDidReceiveChallenge) { $0.urlSession(session, task: task, didReceive: challenge) }
    }

    /// Sends the event to every monitor.
    public func urlSession(_ session: URLSession, task: URLSessionTask, didSendBodyData bytesSent: Int64, totalBytesSent: Int64, totalBytesExpectedToSend: Int64) {
        performEvent(.taskDidSendBodyData) { $0.urlSession(session, task: task, didSendBodyData: bytesSent, totalBytesSent: totalBytesSent, totalBytesExpectedToSend: totalBytesExpectedToSend) }
    }

    /// Sends the event to every monitor.
    public func urlSession(_ session: URLSession, taskNeedsNewBodyStream task: URLSessionTask) {
        performEvent(.taskNeedsNewBodyStream) { $0.urlSession(session, taskNeedsNewBodyStream: task) }
    }

    /// Sends the event to every monitor.
    public func urlSession(_ session: URLSession, task: URLSessionTask, willPerformHTTPRedirection response: HTTPURLResponse, newRequest request: URLRequest) {
        performEvent(.taskWillPerformHTTPRedirection) { $0.urlSession(session, task: task, willPerformHTTPRedirection: response, newRequest: request) }
    }

    /// Sends the event to every monitor.
    public func urlSession(_ session: URLSession, task: URLSessionTask, didFinishCollecting metrics: URLSessionTaskMetrics) {
        performEvent(.taskDidFinishCollectingMetrics) { $0.urlSession(session, task: task, didFinishCollecting: metrics) }
    }

    /// Sends the event to every monitor.
    public func urlSession(_ session: URLSession, task: URLSessionTask, didCompleteWithError error: (any Error)?) {
        performEvent(.taskDidComplete) { $0.urlSession(session, task: task, didCompleteWithError: error) }
    }

    /// Sends the event to every monitor.
    public func urlSession(_ session: URLSession, taskIsWaitingForConnectivity task: URLSessionTask) {
        performEvent(.taskIsWaitingForConnectivity) { $0.urlSession(session, taskIsWaitingForConnectivity: task) }
    }

    /// Sends the event to every monitor.
    public func urlSession(_ session: URLSession, dataTask: URLSessionDataTask, didReceive response: URLResponse) {
        performEvent(.dataTaskDidReceiveResponse) { $0.urlSession(session, dataTask: dataTask, didReceive: response) }
    }

    /// Sends the event to every monitor.
    public func urlSession(_ session: URLSession, dataTask: URLSessionDataTask, didReceive data: Data) {
        performEvent(.dataTaskDidReceiveData) { $0.urlSession(session, dataTask: dataTask, didReceive: data) }
    }

    /// Sends the event to every monitor.
    public func urlSession(_ session: URLSession, dataTask: URLSessionDataTask, willCacheResponse proposedResponse: CachedURLResponse) {
        performEvent(.dataTaskWillCacheResponse) { $0.urlSession(session, dataTask: dataTask, willCacheResponse: proposedResponse) }
    }

    /// Sends the event to every monitor.
    public func urlSession(_ session: URLSession, downloadTask: URLSessionDownloadTask, didResumeAtOffset fileOffset: Int64, expectedTotalBytes: Int64) {
        performEvent(.downloadTaskDidResume) { $0.urlSession(session, downloadTask: downloadTask, didResumeAtOffset: fileOffset, expectedTotalBytes: expectedTotalBytes) }
    }

    /// Sends the event to every monitor.
    public func urlSession(_ session: URLSession, downloadTask: URLSessionDownloadTask, didWriteData bytesWritten: Int64, totalBytesWritten: Int64, totalBytesExpectedToWrite: Int64) {
        performEvent(.downloadTaskDidWriteData) { $0.urlSession(session, downloadTask: downloadTask, didWriteData: bytesWritten, totalBytesWritten: totalBytesWritten, totalBytesExpectedToWrite: totalBytesExpectedToWrite) }
    }

    /// Sends the event to every monitor.
    public func urlSession(_ session: URLSession, downloadTask: URLSessionDownloadTask, didFinishDownloadingTo location: URL) {
        performEvent(.downloadTaskDidFinishDownloading) { $0.urlSession(session, downloadTask: downloadTask, didFinishDownloadingTo: location) }
    }

    /// Sends the event to every monitor.
    public func request(_ request: Request, didCreateInitialURLRequest urlRequest: URLRequest) {
        performEvent(.didCreateInitialURLRequest) { $0.request(request, didCreateInitialURLRequest: urlRequest) }
    }

    /// Sends the event to every monitor.
    public func request(_ request: Request, didFailToCreateURLRequestWithError error: AFError) {
        performEvent(.didFailToCreateURLRequest) { $0.request(request, didFailToCreateURLRequestWithError: error) }
    }

    /// Sends the event to every monitor.
    public func request(_ request: Request, didAdaptInitialRequest initialRequest: URLRequest, to adaptedRequest: URLRequest) {
        performEvent(.didAdaptInitialRequest) { $0.request(request, didAdaptInitialRequest: initialRequest, to: adaptedRequest) }
    }

    /// Sends the event to every monitor.
    public func request(_ request: Request, didFailToAdaptURLRequest initialRequest: URLRequest, withError error: AFError) {
        performEvent(.didFailToAdaptURLRequest) { $0.request(request, didFailToAdaptURLRequest: initialRequest, withError: error) }
    }

    /// Sends the event to every monitor.
    public func request(_ request: Request, didCreateURLRequest urlRequest: URLRequest) {
        performEvent(.didCreateURLRequest) { $0.request(request, didCreateURLRequest: urlRequest) }
    }

    /// Sends the event to every monitor.
    public func request(_ request: Request, didCreateTask task: URLSessionTask) {
        performEvent(.didCreateTask) { $0.request(request, didCreateTask: task) }
    }

    /// Sends the event to every monitor.
    public func request(_ request: Request, didGatherMetrics metrics: URLSessionTaskMetrics) {
        performEvent(.didGatherMetrics) { $0.request(request, didGatherMetrics: metrics) }
    }

    /// Sends the event to every monitor.
    public func request(_ request: Request, didFailTask task: URLSessionTask, earlyWithError error: AFError) {
        performEvent(.didFailTaskEarly) { $0.request(request, didFailTask: task, earlyWithError: error) }
    }

    /// Sends the event to every monitor.
    public func request(_ request: Request, didCompleteTask task: URLSessionTask, with error: AFError?) {
        performEvent(.didCompleteTask) { $0.request(request, didCompleteTask: task, with: error) }
    }

    /// Sends the event to every monitor.
    public func requestIsRetrying(_ request: Request) {
        performEvent(.isRetrying) { $0.requestIsRetrying(request) }
    }

    /// Sends the event to every monitor.
    public func requestDidFinish(_ request: Request) {
        performEvent(.didFinish) { $0.requestDidFinish(request) }
    }

    /// Sends the event to every monitor.
    public func requestDidResume(_ request: Request) {
        performEvent(.didResume) { $0.requestDidResume(request) }
    }

    /// Sends the event to every monitor.
    public func request(_ request: Request, didResumeTask task: URLSessionTask) {
        performEvent(.didResumeTask) { $0.request(request, didResumeTask: task) }
    }

    /// Sends the event to every monitor.
    public func requestDidSuspend(_ request: Request) {
        performEvent(.didSuspend) { $0.requestDidSuspend(request) }
    }

    /// Sends the event to every monitor.
    public func request(_ request: Request, didSuspendTask task: URLSessionTask) {
        performEvent(.didSuspendTask) { $0.request(request, didSuspendTask: task) }
    }

    /// Sends the event to every monitor.
    public func requestDidCancel(_ request: Request) {
        performEvent(.didCancel) { $0.requestDidCancel(request) }
    }

    /// Sends the event to every monitor.
    public func request(_ request: Request, didCancelTask task: URLSessionTask) {
        performEvent(.didCancelTask) { $0.request(request, didCancelTask: task) }
    }

    /// Sends the event to every monitor.
    public func request(_ request: DataRequest, didValidateRequest urlRequest: URLRequest?, response: HTTPURLResponse, data: Data?, withResult result: Request.ValidationResult) {
        performEvent(.didValidateData) { $0.request(request, didValidateRequest: urlRequest, response: response, data: data, withResult: result) }
    }

    /// Sends the event to every monitor.
    public func request(_ request: DataRequest, didParseResponse response: DataResponse<Data?, AFError>) {
        performEvent(.didParseDataResponse) { $0.request(request, didParseResponse: response) }
    }

    /// Sends the event to every monitor.
    public func request<Value: Sendable>(_ request: DataRequest, didParseResponse response: DataResponse<Value, AFError>) {
        performEvent(.didParseDataResponse) { $0.request(request, didParseResponse: response) }
    }

    /// Sends the event to every monitor.
    public func request(_ request: DataStreamRequest, didValidateRequest urlRequest: URLRequest?, response: HTTPURLResponse, withResult result: Request.ValidationResult) {
        performEvent(.didValidateStream) { $0.request(request, didValidateRequest: urlRequest, response: response, withResult: result) }
    }

    /// Sends the event to every monitor.
    public func request<Value: Sendable>(_ request: DataStreamRequest, didParseStream result: Result<Value, AFError>) {
        performEvent(.didParseStream) { $0.request(request, didParseStream: result) }
    }

    /// Sends the event to every monitor.
    public func request(_ request: UploadRequest, didCreateUploadable uploadable: UploadRequest.Uploadable) {
        performEvent(.didCreateUploadable) { $0.request(request, didCreateUploadable: uploadable) }
    }

    /// Sends the event to every monitor.
    public func request(_ request: UploadRequest, didFailToCreateUploadableWithError error: AFError) {
        performEvent(.didFailToCreateUploadable) { $0.request(request, didFailToCreateUploadableWithError: error) }
    }

    /// Sends the event to every monitor.
    public func request(_ request: UploadRequest, didProvideInputStream stream: InputStream) {
        #if FullFoundation
        // Foundation's InputStream is not Sendable (Client's own stand-in is); each monitor
        // receives the same stream, as Alamofire's do, and only reads it if it chooses to.
        nonisolated(unsafe) let stream = stream
        #endif
        performEvent(.didProvideInputStream) { $0.request(request, didProvideInputStream: stream) }
    }

    /// Sends the event to every monitor.
    public func request(_ request: DownloadRequest, didFinishDownloadingUsing task: URLSessionTask, with result: Result<URL, AFError>) {
        performEvent(.didFinishDownloadingUsing) { $0.request(request, didFinishDownloadingUsing: task, with: result) }
    }

    /// Sends the event to every monitor.
    public func request(_ request: DownloadRequest, didCreateDestinationURL url: URL) {
        performEvent(.didCreateDestinationURL) { $0.request(request, didCreateDestinationURL: url) }
    }

    /// Sends the event to every monitor.
    public func request(_ request: DownloadRequest, didValidateRequest urlRequest: URLRequest?, response: HTTPURLResponse, fileURL: URL?, withResult result: Request.ValidationResult) {
        performEvent(.didValidateDownload) { $0.request(request, didValidateRequest: urlRequest, response: response, fileURL: fileURL, withResult: result) }
    }

    /// Sends the event to every monitor.
    public func request(_ request: DownloadRequest, didParseResponse response: DownloadResponse<URL?, AFError>) {
        performEvent(.didParseDownloadResponse) { $0.request(request, didParseResponse: response) }
    }

    /// Sends the event to every monitor.
    public func request<Value: Sendable>(_ request: DownloadRequest, didParseResponse response: DownloadResponse<Value, AFError>) {
        performEvent(.didParseDownloadResponse) { $0.request(request, didParseResponse: response) }
    }
}
