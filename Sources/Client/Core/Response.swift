#if FullFoundation
public import Foundation
#else
public import FoundationEssentials
#endif

/// A `Result` whose failure is an ``AFError``.
public typealias AFResult<Success> = Result<Success, AFError>

/// A ``DataResponse`` whose failure is an ``AFError``: what every `response…` handler receives.
public typealias AFDataResponse<Success: Sendable> = DataResponse<Success, AFError>

/// A ``DownloadResponse`` whose failure is an ``AFError``.
public typealias AFDownloadResponse<Success: Sendable> = DownloadResponse<Success, AFError>

/// Everything known about a finished data request: the request, the response, the raw body, timing
/// and the serialized result.
public struct DataResponse<Success: Sendable, Failure: Error>: Sendable {
    /// The last request sent (after adaptation and redirects), or `nil` if none was created.
    public let request: URLRequest?
    /// The response head, or `nil` if none arrived.
    public let response: HTTPURLResponse?
    /// The raw body bytes, or `nil` if none arrived.
    public let data: Data?
    /// Timing and size measurements, or `nil` if the request never reached the transport.
    /// Built when first read from the transport's record, by the request, which keeps it: the
    /// same object as ``Request/metrics`` for that attempt.
    public var metrics: URLSessionTaskMetrics? { taskMetrics.value }
    /// The metrics, or the attempt whose metrics they are.
    let taskMetrics: ResponseMetrics
    /// Seconds spent in the response serializer.
    public let serializationDuration: TimeInterval
    /// The serialized value or the error.
    public let result: Result<Success, Failure>

    /// The value, if the result is a success.
    public var value: Success? { result.success }

    /// The error, if the result is a failure.
    public var error: Failure? { result.failure }

    /// Creates a response.
    ///
    /// - Parameters:
    ///   - request:               The request sent, if any.
    ///   - response:              The response head, if any.
    ///   - data:                  The body, if any.
    ///   - metrics:               The measurements, if any.
    ///   - serializationDuration: Seconds spent serializing.
    ///   - result:                The outcome.
    public init(
        request: URLRequest?,
        response: HTTPURLResponse?,
        data: Data?,
        metrics: URLSessionTaskMetrics?,
        serializationDuration: TimeInterval,
        result: Result<Success, Failure>
    ) {
        self.init(request: request, response: response, data: data, taskMetrics: .built(metrics),
                  serializationDuration: serializationDuration, result: result)
    }

    /// A response whose metrics are built when read.
    init(
        request: URLRequest?, response: HTTPURLResponse?, data: Data?, taskMetrics: ResponseMetrics,
        serializationDuration: TimeInterval, result: Result<Success, Failure>
    ) {
        self.request = request
        self.response = response
        self.data = data
        self.taskMetrics = taskMetrics
        self.serializationDuration = serializationDuration
        self.result = result
    }
}

extension DataResponse {
    /// Transforms the success value, keeping everything else.
    ///
    /// - Parameter transform: Applied to the value on success.
    /// - Returns: A response with the transformed result.
    public func map<NewSuccess: Sendable>(_ transform: (Success) -> NewSuccess) -> DataResponse<NewSuccess, Failure> {
        with(result.map(transform))
    }

    /// Transforms the success value with a closure that may throw; a thrown error becomes the failure.
    ///
    /// - Parameter transform: Applied to the value on success.
    /// - Returns: A response whose failure type is `any Error`.
    public func tryMap<NewSuccess: Sendable>(_ transform: (Success) throws -> NewSuccess) -> DataResponse<NewSuccess, any Error> {
        with(result.tryMap(transform))
    }

    /// Transforms the success value into a new result, which may fail.
    ///
    /// - Parameter transform: Applied to the value on success.
    /// - Returns: A response with the transform's result.
    public func flatMap<NewSuccess: Sendable>(_ transform: (Success) -> Result<NewSuccess, Failure>) -> DataResponse<NewSuccess, Failure> {
        with(result.flatMap(transform))
    }

    /// Transforms the error, keeping everything else.
    ///
    /// - Parameter transform: Applied to the error on failure.
    /// - Returns: A response with the transformed failure.
    public func mapError<NewFailure: Error>(_ transform: (Failure) -> NewFailure) -> DataResponse<Success, NewFailure> {
        with(result.mapError(transform))
    }

    /// Transforms the error with a closure that may throw; a thrown error becomes the failure.
    ///
    /// - Parameter transform: Applied to the error on failure.
    /// - Returns: A response whose failure type is `any Error`.
    public func tryMapError<NewFailure: Error>(_ transform: (Failure) throws -> NewFailure) -> DataResponse<Success, any Error> {
        with(result.tryMapError(transform))
    }

    private func with<S, F>(_ result: Result<S, F>) -> DataResponse<S, F> {
        DataResponse<S, F>(
            request: request, response: response, data: data, taskMetrics: taskMetrics,
            serializationDuration: serializationDuration, result: result
        )
    }
}

extension DataResponse: CustomStringConvertible, CustomDebugStringConvertible {
    /// The result, for example `success(…)`.
    public var description: String { "\(result.outcomeDescription)" }

    /// The request, response, body, durations and result on labelled lines.
    public var debugDescription: String {
        ResponseDescription.render(
            request: request, response: response, body: ResponseDescription.body(data),
            metrics: metrics, serializationDuration: serializationDuration, result: result.outcomeDescription
        )
    }
}

/// Everything known about a finished download: the request, the response, the file, timing and
/// the serialized result.
public struct DownloadResponse<Success: Sendable, Failure: Error>: Sendable {
    /// The last request sent, or `nil` if none was created.
    public let request: URLRequest?
    /// The response head, or `nil` if none arrived.
    public let response: HTTPURLResponse?
    /// Where the downloaded file was put, or `nil` if there is none.
    public let fileURL: URL?
    /// Data to resume an interrupted download, if the transfer produced any.
    public let resumeData: Data?
    /// Timing and size measurements, or `nil` if the request never reached the transport.
    public let metrics: URLSessionTaskMetrics?
    /// Seconds spent in the response serializer.
    public let serializationDuration: TimeInterval
    /// The serialized value or the error.
    public let result: Result<Success, Failure>

    /// The value, if the result is a success.
    public var value: Success? { result.success }

    /// The error, if the result is a failure.
    public var error: Failure? { result.failure }

    /// Creates a response.
    ///
    /// - Parameters:
    ///   - request:               The request sent, if any.
    ///   - response:              The response head, if any.
    ///   - fileURL:               The downloaded file, if any.
    ///   - resumeData:            Resume data, if any.
    ///   - metrics:               The measurements, if any.
    ///   - serializationDuration: Seconds spent serializing.
    ///   - result:                The outcome.
    public init(
        request: URLRequest?,
        response: HTTPURLResponse?,
        fileURL: URL?,
        resumeData: Data?,
        metrics: URLSessionTaskMetrics?,
        serializationDuration: TimeInterval,
        result: Result<Success, Failure>
    ) {
        self.request = request
        self.response = response
        self.fileURL = fileURL
        self.resumeData = resumeData
        self.metrics = metrics
        self.serializationDuration = serializationDuration
        self.result = result
    }
}

extension DownloadResponse {
    /// Transforms the success value, keeping everything else.
    ///
    /// - Parameter transform: Applied to the value on success.
    /// - Returns: A response with the transformed result.
    public func map<NewSuccess: Sendable>(_ transform: (Success) -> NewSuccess) -> DownloadResponse<NewSuccess, Failure> {
        with(result.map(transform))
    }

    /// Transforms the success value with a closure that may throw; a thrown error becomes the failure.
    ///
    /// - Parameter transform: Applied to the value on success.
    /// - Returns: A response whose failure type is `any Error`.
    public func tryMap<NewSuccess: Sendable>(_ transform: (Success) throws -> NewSuccess) -> DownloadResponse<NewSuccess, any Error> {
        with(result.tryMap(transform))
    }

    /// Transforms the success value into a new result, which may fail.
    ///
    /// - Parameter transform: Applied to the value on success.
    /// - Returns: A response with the transform's result.
    public func flatMap<NewSuccess: Sendable>(_ transform: (Success) -> Result<NewSuccess, Failure>) -> DownloadResponse<NewSuccess, Failure> {
        with(result.flatMap(transform))
    }

    /// Transforms the error, keeping everything else.
    ///
    /// - Parameter transform: Applied to the error on failure.
    /// - Returns: A response with the transformed failure.
    public func mapError<NewFailure: Error>(_ transform: (Failure) -> NewFailure) -> DownloadResponse<Success, NewFailure> {
        with(result.mapError(transform))
    }

    /// Transforms the error with a closure that may throw; a thrown error becomes the failure.
    ///
    /// - Parameter transform: Applied to the error on failure.
    /// - Returns: A response whose failure type is `any Error`.
    public func tryMapError<NewFailure: Error>(_ transform: (Failure) throws -> NewFailure) -> DownloadResponse<Success, any Error> {
        with(result.tryMapError(transform))
    }

    private func with<S, F>(_ result: Result<S, F>) -> DownloadResponse<S, F> {
        DownloadResponse<S, F>(
            request: request, response: response, fileURL: fileURL, resumeData: resumeData,
            metrics: metrics, serializationDuration: serializationDuration, result: result
        )
    }
}

extension DownloadResponse: CustomStringConvertible, CustomDebugStringConvertible {
    /// The result, for example `success(…)`.
    public var description: String { "\(result.outcomeDescription)" }

    /// The request, response, file, durations and result on labelled lines.
    public var debugDescription: String {
        var body = fileURL.map { "File: \($0.path)" } ?? "None"
        if let resumeData { body += ", resume data: \(resumeData.count) bytes" }
        return ResponseDescription.render(
            request: request, response: response, body: body,
            metrics: metrics, serializationDuration: serializationDuration, result: result.outcomeDescription
        )
    }
}
