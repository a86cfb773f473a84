#if !FullFoundation
import FoundationEssentials
public import Dispatch
import Synchronization

// FoundationEssentials has no `Notification` or `NotificationCenter`; the FoundationEssentials-only
// build gets these small stand-ins so `AlamofireNotifications` and code observing
// `Request.didResumeNotification` & co. compile unchanged. Full Foundation's are used otherwise.

/// Stand-in for Foundation's `Notification`: a name, an optional object and user info.
///
/// `@unchecked Sendable` because `object` and `userInfo` are `Any`, as in Foundation, where
/// notifications cross threads the same way: Alamofire's carry only their `Request` (Sendable);
/// whoever posts anything else must not mutate it afterwards.
public struct Notification: @unchecked Sendable {
    /// A notification's name.
    public struct Name: RawRepresentable, Hashable, Sendable {
        /// The name's text.
        public let rawValue: String
        /// Creates a name.
        public init(rawValue: String) { self.rawValue = rawValue }
        /// Creates a name.
        public init(_ rawValue: String) { self.rawValue = rawValue }
    }

    /// The name.
    public var name: Name
    /// The object posting it, if any.
    public var object: Any?
    /// Extra values; `nil` by default.
    public var userInfo: [AnyHashable: Any]?

    /// Creates a notification.
    public init(name: Name, object: Any? = nil, userInfo: [AnyHashable: Any]? = nil) {
        self.name = name
        self.object = object
        self.userInfo = userInfo
    }
}

/// Stand-in for Foundation's `NotificationCenter`: observers by name, called synchronously on the
/// posting thread, or on the `DispatchQueue` they gave (Foundation takes an `OperationQueue`,
/// which FoundationEssentials lacks).
///
/// `@unchecked Sendable`: observers live in a mutex and are called outside it.
public final class NotificationCenter: @unchecked Sendable {
    private struct Observer {
        let token: ObjectIdentifier
        let name: Notification.Name?
        let queue: DispatchQueue?
        let block: @Sendable (Notification) -> Void
    }

    /// The token ``addObserver(forName:object:queue:using:)`` returns; pass it to ``removeObserver(_:)``.
    private final class Token: Sendable {}

    /// The process's shared center.
    public static let `default` = NotificationCenter()
    private let observers = Mutex<[Observer]>([])

    /// Creates a center with no observers.
    public init() {}

    /// Adds an observer of `name` (`nil`: every notification); `object` is not compared (the
    /// stand-in posts objects of any type). Returns the token to remove it with.
    @discardableResult
    public func addObserver(forName name: Notification.Name?, object: Any? = nil, queue: DispatchQueue? = nil,
                            using block: @escaping @Sendable (Notification) -> Void) -> AnyObject {
        let token = Token()
        observers.withLock { $0.append(Observer(token: ObjectIdentifier(token), name: name, queue: queue, block: block)) }
        return token
    }

    /// Removes the observer `observer` (a token from ``addObserver(forName:object:queue:using:)``).
    public func removeObserver(_ observer: Any) {
        let id = ObjectIdentifier(observer as AnyObject)
        observers.withLock { $0.removeAll { $0.token == id } }
    }

    /// Calls every observer of `notification.name`.
    public func post(_ notification: Notification) {
        let matching = observers.withLock { $0.filter { $0.name == nil || $0.name == notification.name } }
        for observer in matching {
            if let queue = observer.queue {
                let boxed = notification
                queue.async { observer.block(boxed) }
            } else {
                observer.block(notification)
            }
        }
    }

    /// Posts a notification named `name`.
    public func post(name: Notification.Name, object: Any?, userInfo: [AnyHashable: Any]? = nil) {
        post(Notification(name: name, object: object, userInfo: userInfo))
    }
}
#endif
