// Conveniences on Result used throughout Client (internal, as in Alamofire).

extension Result {
    /// Whether this is `.success`.
    var isSuccess: Bool {
        if case .success = self { return true }
        return false
    }

    /// Whether this is `.failure`.
    var isFailure: Bool { !isSuccess }

    /// The success value, or `nil`.
    var success: Success? {
        guard case let .success(value) = self else { return nil }
        return value
    }

    /// The failure, or `nil`.
    var failure: Failure? {
        guard case let .failure(error) = self else { return nil }
        return error
    }

    /// A success from `value`, else a failure from `error`; both `nil` is a programming error.
    init(value: Success?, error: Failure?) {
        if let value {
            self = .success(value)
        } else if let error {
            self = .failure(error)
        } else {
            preconditionFailure("Result(value:error:) needs a value or an error")
        }
    }

    /// Like `map`, but a thrown error becomes the failure.
    func tryMap<NewSuccess>(_ transform: (Success) throws -> NewSuccess) -> Result<NewSuccess, any Error> {
        switch self {
        case let .success(value):
            do { return .success(try transform(value)) } catch { return .failure(error) }
        case let .failure(error):
            return .failure(error)
        }
    }

    /// Like `mapError`, but a thrown error becomes the failure.
    func tryMapError<NewFailure: Error>(_ transform: (Failure) throws -> NewFailure) -> Result<Success, any Error> {
        switch self {
        case let .failure(error):
            do { return .failure(try transform(error)) } catch { return .failure(error) }
        case let .success(value):
            return .success(value)
        }
    }

    /// `"success(value)"` or `"failure(error)"`, with the payload's description.
    var outcomeDescription: String {
        switch self {
        case let .success(value): "success(\(value))"
        case let .failure(error): "failure(\(error))"
        }
    }
}
