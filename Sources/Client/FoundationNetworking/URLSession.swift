#if FullFoundation
import Foundation
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
    }

    /// The next task identifier: 1, 2, 3… per session, as URLSession numbers its tasks.
    func makeTaskIdentifier() -> Int {
        nextTaskIdentifier.wrappingAdd(1, ordering: .relaxed).oldValue
    }
}
