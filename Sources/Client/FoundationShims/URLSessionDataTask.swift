#if FullFoundation
import Foundation
#else
import FoundationEssentials
#endif

// MERGE: monitors (issue 11) may add stand-in task types for EventMonitor; keep one definition
// of URLSessionTask/URLSessionDataTask (theirs if richer) and delete the other.

/// A stand-in for Foundation's `URLSessionTask` (Lariat has no URLSession): what an exchange was
/// asked and answered, for the callbacks Alamofire passes a task to.
///
/// `@unchecked Sendable`: every stored property is an immutable `let` of a `Sendable` type, and
/// the class is not `open`, so no subclass outside Client can add mutable state.
public class URLSessionTask: @unchecked Sendable {
    /// A number unique among this process's tasks.
    public let taskIdentifier: Int
    /// The request as first made.
    public let originalRequest: URLRequest?
    /// The request as sent.
    public let currentRequest: URLRequest?
    /// The response head, once one arrived.
    public let response: HTTPURLResponse?

    init(taskIdentifier: Int, originalRequest: URLRequest?, currentRequest: URLRequest?, response: HTTPURLResponse?) {
        self.taskIdentifier = taskIdentifier
        self.originalRequest = originalRequest
        self.currentRequest = currentRequest
        self.response = response
    }
}

/// A stand-in for Foundation's `URLSessionDataTask`: a task whose body is collected in memory.
public final class URLSessionDataTask: URLSessionTask, @unchecked Sendable {}
