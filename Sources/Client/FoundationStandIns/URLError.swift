// Client's own URLError, compiled only without the FullFoundation trait. With the trait on,
// Foundation's URLError is used instead so `error as? URLError` matches Foundation's type.
#if !FullFoundation
public import FoundationEssentials

/// The `userInfo` key under which an error's cause is stored (Foundation's `NSUnderlyingErrorKey`).
public let NSUnderlyingErrorKey = "NSUnderlyingError"

/// The `userInfo` key for the URL that failed (Foundation's `NSURLErrorFailingURLErrorKey`).
public let NSURLErrorFailingURLErrorKey = "NSErrorFailingURLKey"

/// The `userInfo` key for the failing URL's string (Foundation's `NSURLErrorFailingURLStringErrorKey`).
public let NSURLErrorFailingURLStringErrorKey = "NSErrorFailingURLStringKey"

/// The `userInfo` key for a human-readable description (Foundation's `NSLocalizedDescriptionKey`).
public let NSLocalizedDescriptionKey = "NSLocalizedDescription"

/// An error from the URL loading layer, with the same codes as Foundation's `URLError`.
///
/// This is Lariat's stand-in for builds without full Foundation. It keeps Foundation's shape:
/// a ``Code`` with Apple's raw values, a `userInfo` dictionary, ``failingURL``, and static
/// members so `catch URLError.timedOut` works. `userInfo` values must be `Sendable`.
public struct URLError: Error, Sendable {
    /// The domain Foundation reports for these errors.
    public static let errorDomain = "NSURLErrorDomain"

    /// What went wrong.
    public let code: Code

    /// Extra information: the cause under ``NSUnderlyingErrorKey``, the URL under
    /// ``NSURLErrorFailingURLErrorKey``, and so on.
    public let userInfo: [String: any Sendable]

    /// Creates an error.
    ///
    /// - Parameters:
    ///   - code:     What went wrong.
    ///   - userInfo: Extra information. Empty by default.
    public init(_ code: Code, userInfo: [String: any Sendable] = [:]) {
        self.code = code
        self.userInfo = userInfo
    }

    /// The code's raw value, for example `-1001` for ``Code/timedOut``.
    public var errorCode: Int { code.rawValue }

    /// Same as ``userInfo``, under the name Foundation's `CustomNSError` uses.
    public var errorUserInfo: [String: any Sendable] { userInfo }

    /// The URL whose load failed, if recorded under ``NSURLErrorFailingURLErrorKey``.
    public var failingURL: URL? { userInfo[NSURLErrorFailingURLErrorKey] as? URL }

    /// The failing URL's string, from ``NSURLErrorFailingURLStringErrorKey`` or ``failingURL``.
    public var failureURLString: String? {
        userInfo[NSURLErrorFailingURLStringErrorKey] as? String ?? failingURL?.absoluteString
    }

    /// The error that caused this one, if recorded under ``NSUnderlyingErrorKey``.
    public var underlyingError: (any Error)? { userInfo[NSUnderlyingErrorKey] as? any Error }
}

extension URLError: Equatable, Hashable {
    /// Two errors are equal when their codes, failing URLs and underlying errors' descriptions match.
    ///
    /// - Parameters:
    ///   - lhs: An error.
    ///   - rhs: Another error.
    /// - Returns: Whether they describe the same failure.
    public static func == (lhs: URLError, rhs: URLError) -> Bool {
        lhs.code == rhs.code && lhs.failingURL == rhs.failingURL
            && lhs.underlyingError.map { String(describing: $0) } == rhs.underlyingError.map { String(describing: $0) }
    }

    /// Hashes the code and failing URL.
    ///
    /// - Parameter hasher: The hasher.
    public func hash(into hasher: inout Hasher) {
        hasher.combine(code)
        hasher.combine(failingURL)
    }
}

extension URLError: LocalizedError {
    /// The description stored under ``NSLocalizedDescriptionKey``, or one derived from the code.
    public var errorDescription: String? {
        if let text = userInfo[NSLocalizedDescriptionKey] as? String { return text }
        return "The operation couldn't be completed. (\(URLError.errorDomain) error \(code.rawValue).)"
    }
}

extension URLError: CustomStringConvertible {
    /// The domain, code and, when present, failing URL and cause.
    public var description: String {
        var text = "URLError(\(code.rawValue)"
        if let failingURL { text += ", url: \(failingURL.absoluteString)" }
        if let underlyingError { text += ", underlying: \(underlyingError)" }
        return text + ")"
    }
}

/// Matches a caught error against a URL error code, so `catch URLError.cancelled` works.
///
/// - Parameters:
///   - code:  The code to look for.
///   - error: The caught error.
/// - Returns: Whether `error` is a ``URLError`` with that code.
public func ~= (code: URLError.Code, error: any Error) -> Bool {
    (error as? URLError)?.code == code
}
#endif
