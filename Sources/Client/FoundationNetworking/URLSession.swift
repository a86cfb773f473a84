#if FullFoundation
public import Foundation
#else
import FoundationEssentials
#endif
import Synchronization

/// The response type Alamofire's URLSession signatures name: Lariat has only HTTP responses.
public typealias URLResponse = HTTPURLResponse

/// Stand-in for Foundation's `URLSession`, which Lariat does not use: it describes the
/// ``Session`` that owns it (``Session/session``) and is what monitors receive as the
/// `session` argument of `urlSession(...)` events.
public final class URLSession: Sendable {
    /// What to do with a response head (Alamofire's `SessionDelegate` signature).
    public enum ResponseDisposition: Int, Sendable {
        /// Cancel the task.
        case cancel = 0
        /// Continue.
        case allow = 1
        /// Continue as a download (not supported by Lariat; treated as `allow`).
        case becomeDownload = 2
        /// Continue as a stream (not supported by Lariat; treated as `allow`).
        case becomeStream = 3
    }

    /// A copy of the owning session's configuration.
    public let configuration: URLSessionConfiguration
    /// The owning session's ``SessionDelegate`` (``Session/delegate``), as URLSession keeps the
    /// delegate it was created with; `nil` for a stand-in made without one.
    public let delegate: SessionDelegate?
    private let descriptionStorage = Mutex<String?>(nil)
    private let nextTaskIdentifier = Atomic<Int>(1)

    /// A description the app may set; `nil` by default.
    public var sessionDescription: String? {
        get { descriptionStorage.withLock { $0 } }
        set { descriptionStorage.withLock { $0 = newValue } }
    }

    /// Creates a stand-in with `configuration` (copied).
    /// - Parameter configuration: `.default` by default.
    public init(configuration: URLSessionConfiguration = .default) {
        self.configuration = configuration.copy()
        self.delegate = nil
    }

    /// Creates a stand-in with `configuration` (copied) and `delegate`, Lariat's form of
    /// Foundation's initializer with a delegate.
    /// - Parameters:
    ///   - configuration: The configuration to copy.
    ///   - delegate: The delegate to keep; `nil` for none.
    init(configuration: URLSessionConfiguration, delegate: SessionDelegate?) {
        self.configuration = configuration.copy()
        self.delegate = delegate
    }

    #if FullFoundation
    /// Creates a stand-in as Foundation's `URLSession(configuration:delegate:delegateQueue:)`, for
    /// ``Session/init(session:delegate:rootQueue:startRequestsImmediately:requestSetup:requestQueue:serializationQueue:interceptor:serverTrustManager:redirectHandler:cachedResponseHandler:eventMonitors:)``.
    /// - Parameters:
    ///   - configuration: The configuration to copy.
    ///   - delegate: The delegate to keep (a ``SessionDelegate``); `nil` for none.
    ///   - queue: Ignored: Lariat calls delegates from its own queues (the session's `rootQueue`).
    public convenience init(configuration: URLSessionConfiguration, delegate: SessionDelegate?, delegateQueue queue: OperationQueue?) {
        self.init(configuration: configuration, delegate: delegate)
    }
    #endif

    /// The next task identifier: 1, 2, 3… per session, as URLSession numbers its tasks.
    func makeTaskIdentifier() -> Int {
        nextTaskIdentifier.wrappingAdd(1, ordering: .relaxed).oldValue
    }
}
