#if FullFoundation
import Foundation
#else
import FoundationEssentials
#endif
import Dispatch

extension Request {
    /// Posted when a request is resumed; the notification's ``Foundation/Notification/request`` is the request.
    public static let didResumeNotification = Notification.Name(rawValue: "org.alamofire.notification.name.request.didResume")
    /// Posted when a request is suspended.
    public static let didSuspendNotification = Notification.Name(rawValue: "org.alamofire.notification.name.request.didSuspend")
    /// Posted when a request is cancelled.
    public static let didCancelNotification = Notification.Name(rawValue: "org.alamofire.notification.name.request.didCancel")
    /// Posted when a request finished.
    public static let didFinishNotification = Notification.Name(rawValue: "org.alamofire.notification.name.request.didFinish")
    /// Posted when a request's task is resumed.
    public static let didResumeTaskNotification = Notification.Name(rawValue: "org.alamofire.notification.name.request.didResumeTask")
    /// Posted when a request's task is suspended.
    public static let didSuspendTaskNotification = Notification.Name(rawValue: "org.alamofire.notification.name.request.didSuspendTask")
    /// Posted when a request's task is cancelled.
    public static let didCancelTaskNotification = Notification.Name(rawValue: "org.alamofire.notification.name.request.didCancelTask")
    /// Posted when a request's task completed.
    public static let didCompleteTaskNotification = Notification.Name(rawValue: "org.alamofire.notification.name.request.didCompleteTask")
}

extension Notification {
    /// The user info key under which Alamofire's notifications carry their request.
    static let requestKey = "org.alamofire.notification.key.request"

    /// The request an Alamofire notification is about; `nil` for other notifications.
    public var request: Request? { userInfo?[Notification.requestKey] as? Request }
}

/// Posts `Request.didResumeNotification` and the seven other request notifications on
/// `NotificationCenter.default`, with the request in the user info (``Foundation/Notification/request``).
///
/// Every session has one unless `eventMonitors:` says otherwise (Alamofire's default). Its
/// ``queue`` is a serial queue of its own, not `.main` as in Alamofire: every request of every
/// session posts through it, and a program that never serves the main queue (a server, a
/// command-line tool without `dispatchMain()`) would otherwise pile up one block per event
/// there, each holding its request. Observers run on that queue, or on the queue they gave
/// `addObserver`.
public final class AlamofireNotifications: EventMonitor {
    /// The queue notifications are posted from.
    public let queue: DispatchQueue

    private static let sharedQueue = DispatchQueue(label: "org.lariat.notifications")

    /// Creates the monitor.
    public init() {
        queue = Self.sharedQueue
    }

    private func post(_ name: Notification.Name, _ request: Request) {
        NotificationCenter.default.post(name: name, object: nil, userInfo: [Notification.requestKey: request])
    }

    /// Posts ``Request/didResumeNotification``.
    public func requestDidResume(_ request: Request) { post(Request.didResumeNotification, request) }
    /// Posts ``Request/didSuspendNotification``.
    public func requestDidSuspend(_ request: Request) { post(Request.didSuspendNotification, request) }
    /// Posts ``Request/didCancelNotification``.
    public func requestDidCancel(_ request: Request) { post(Request.didCancelNotification, request) }
    /// Posts ``Request/didFinishNotification``.
    public func requestDidFinish(_ request: Request) { post(Request.didFinishNotification, request) }
    /// Posts ``Request/didResumeTaskNotification``.
    public func request(_ request: Request, didResumeTask task: URLSessionTask) { post(Request.didResumeTaskNotification, request) }
    /// Posts ``Request/didSuspendTaskNotification``.
    public func request(_ request: Request, didSuspendTask task: URLSessionTask) { post(Request.didSuspendTaskNotification, request) }
    /// Posts ``Request/didCancelTaskNotification``.
    public func request(_ request: Request, didCancelTask task: URLSessionTask) { post(Request.didCancelTaskNotification, request) }
    /// Posts ``Request/didCompleteTaskNotification``.
    public func request(_ request: Request, didCompleteTask task: URLSessionTask, with error: AFError?) {
        post(Request.didCompleteTaskNotification, request)
    }
}
