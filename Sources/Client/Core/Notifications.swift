#if FullFoundation
public import Foundation
#else
import FoundationEssentials
#endif
public import Dispatch
import Synchronization

extension Request {
    /// Posted when a request is resumed; the notification's `Notification.request` is the request.
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
/// `NotificationCenter.default`, with the request in the user info (`Notification.request`).
///
/// Every session has one unless `eventMonitors:` says otherwise (Alamofire's default).
///
/// Unlike other monitors, and unlike Alamofire (which posts from `.main`), a session posts these
/// at once, on the thread where the event happened (the thread that called `resume()` or
/// `cancel()`, or a connection's loop): observers registered without a queue run there, so
/// pass `addObserver(forName:object:queue:using:)` a queue (`.main` for Alamofire's behaviour)
/// for anything but quick work. Why: every request of every default session produces four of
/// these, and a hop to a queue for each raised a keep-alive GET from 3.1 to 10.9 context
/// switches (`RequestLifecycleTests.contextSwitchesPerRequest`), while a post that no one
/// observes costs a lookup; `.main` would also pile up blocks in programs that never serve it.
public final class AlamofireNotifications: EventMonitor {
    /// A serial queue of the monitor's own; a session does not use it (see above).
    public let queue: DispatchQueue

    private static let sharedQueue = DispatchQueue(label: "org.lariat.notifications")

    /// Creates the monitor.
    public init() {
        queue = Self.sharedQueue
    }

    /// Posts `name` on `NotificationCenter.default` with `request` in the user info.
    func post(_ name: Notification.Name, _ request: Request) {
        NotificationCenter.default.post(name: name, object: nil, userInfo: request.notificationUserInfo)
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

/// The user info of a request's notifications, `[Notification.requestKey: request]`, built once
/// per request: a default session posts four notifications for every request (resume, task
/// resumed, task completed, finish), and each built its own dictionary, an allocation whether or
/// not anyone observed it. (Foundation's `NotificationCenter` cannot say whether a name has
/// observers, so the dictionary is always needed.)
///
/// `notBuilt` ─first post while the session tracks the request─▶ `cached` ─request untracked─▶
/// `finished`. The dictionary holds the request, so it is kept only while the session's set of
/// live requests holds the request anyway, and dropped when the request leaves it; posts outside
/// that span (none today) build a dictionary of their own, as before.
///
/// The dictionary's storage is recycled: when the request finishes, its entry is removed and the
/// empty dictionary, which keeps its capacity, goes to ``spares``; the next request's first post
/// takes it and stores itself in place, so a steady stream of requests allocates no dictionary.
/// What observers see is unchanged: a dictionary is a value, and an observer that kept a
/// notification keeps its own copy (the removal then copies ours instead of changing theirs).
///
/// `@unchecked Sendable`: the dictionary is never mutated while shared and holds only a `String`
/// key and the request, which is `Sendable`.
enum NotificationUserInfo: @unchecked Sendable {
    /// No notification posted yet.
    case notBuilt
    /// Built by the first post; later posts reuse it.
    case cached([AnyHashable: Any])
    /// The request finished and left the session's live requests: nothing is cached any more.
    case finished

    /// Emptied dictionaries with room for one entry, shared by every request in the process;
    /// at most ``maximumSpares`` (about one per request in flight at once).
    private static let spares: Mutex<[Spare]> = {
        var spares: [Spare] = []
        spares.reserveCapacity(maximumSpares)
        return Mutex(spares)
    }()
    static let maximumSpares = 64

    /// An emptied user info. `@unchecked Sendable`: it holds nothing, and is handed from one
    /// request to the next through the mutex only.
    private struct Spare: @unchecked Sendable {
        var userInfo: [AnyHashable: Any]
    }

    /// The user info for `request`: a spare dictionary with the request stored in it, or a new one.
    static func make(for request: Request) -> [AnyHashable: Any] {
        guard var userInfo = spares.withLock({ $0.popLast()?.userInfo }) else { return [Notification.requestKey: request] }
        userInfo[Notification.requestKey] = request
        return userInfo
    }

    /// Takes back a finished request's user info: empties it and keeps it for the next request.
    /// (`consuming`: a copy would make the storage shared, and emptying it would allocate.)
    static func recycle(_ userInfo: consuming [AnyHashable: Any]) {
        userInfo.removeAll(keepingCapacity: true)
        let spare = Spare(userInfo: userInfo)
        spares.withLock { spares in
            if spares.count < maximumSpares { spares.append(spare) }
        }
    }

    /// How many spare dictionaries are kept (tests).
    static var spareCount: Int { spares.withLock { $0.count } }
}

extension Request {
    /// The user info for this request's notifications: ``NotificationUserInfo``'s cached
    /// dictionary while the session tracks the request, else a new one.
    var notificationUserInfo: [AnyHashable: Any] {
        lifecycle.state.withLock { state in
            if case .cached(let userInfo) = state.notificationUserInfo { return userInfo }
            guard case .notBuilt = state.notificationUserInfo, state.isTracked else { return [Notification.requestKey: self] }
            let userInfo = NotificationUserInfo.make(for: self)
            state.notificationUserInfo = .cached(userInfo)
            return userInfo
        }
    }

    /// The request left the session's live requests: its user info is no longer cached, and
    /// its dictionary goes back to ``NotificationUserInfo``'s spares.
    func dropNotificationUserInfo() {
        let cached = lifecycle.state.withLock { state -> [AnyHashable: Any]? in
            defer { state.notificationUserInfo = .finished }
            guard case .cached(let userInfo) = state.notificationUserInfo else { return nil }
            return userInfo
        }
        if let cached { NotificationUserInfo.recycle(consume cached) }
    }
}
