#if FullFoundation
import Foundation
#else
import FoundationEssentials
#endif

/// A server's authentication challenge, as monitors receive it
/// (``EventMonitor/urlSession(_:task:didReceive:)``).
///
/// Lariat's own, small stand-in for Foundation's (FoundationNetworking on Linux): the members
/// code reads. Lariat answers Basic and Digest challenges itself, from the request's credential
/// or the session's credential storage; the challenge only reports what the server asked.
public final class URLAuthenticationChallenge: Sendable {
    /// The server, realm and method the challenge is for.
    public let protectionSpace: URLProtectionSpace
    /// The credential Lariat answers with, `nil` when it has none (the 401 is delivered).
    public let proposedCredential: URLCredential?
    /// How many times this request's challenges were answered before (0 for the first).
    public let previousFailureCount: Int
    /// The 401 response carrying the challenge.
    public let failureResponse: URLResponse?
    /// Always `nil`: Lariat's challenges come from responses, never from errors.
    public let error: (any Error)?

    /// Creates a challenge.
    /// - Parameters:
    ///   - protectionSpace: Where the challenge applies.
    ///   - proposedCredential: The credential answering it, if any.
    ///   - previousFailureCount: Earlier answers for this request.
    ///   - failureResponse: The response carrying the challenge.
    ///   - error: The error that caused the challenge, if any.
    public init(protectionSpace: URLProtectionSpace, proposedCredential: URLCredential?, previousFailureCount: Int,
                failureResponse: URLResponse?, error: (any Error)?) {
        self.protectionSpace = protectionSpace
        self.proposedCredential = proposedCredential
        self.previousFailureCount = previousFailureCount
        self.failureResponse = failureResponse
        self.error = error
    }
}

extension URLSession {
    /// How a delegate answers an authentication challenge (Alamofire's `SessionDelegate`
    /// signature; Lariat decides challenges itself, see ``URLAuthenticationChallenge``).
    public enum AuthChallengeDisposition: Int, Sendable {
        /// Answer with the given credential.
        case useCredential = 0
        /// Do what the session would do without a delegate.
        case performDefaultHandling = 1
        /// Cancel the request.
        case cancelAuthenticationChallenge = 2
        /// Reject this protection space and try the next one.
        case rejectProtectionSpace = 3
    }
}
