#if FullFoundation
import Foundation
#else
import FoundationEssentials
#endif
import Testing
@testable import Client

private struct Cause: Error, Equatable { let id: Int }

private let fileURL = URL(fileURLWithPath: "/tmp/f")
private let failing = URL(string: "https://example.com/fail")!

/// One instance of every AFError case, with every nested reason.
private let everyError: [AFError] = [
    .createUploadableFailed(error: Cause(id: 1)),
    .createURLRequestFailed(error: Cause(id: 2)),
    .downloadedFileMoveFailed(error: Cause(id: 3), source: fileURL, destination: fileURL),
    .explicitlyCancelled,
    .invalidURL(url: "bad url"),
    .multipartEncodingFailed(reason: .bodyPartURLInvalid(url: fileURL)),
    .multipartEncodingFailed(reason: .bodyPartFilenameInvalid(in: fileURL)),
    .multipartEncodingFailed(reason: .bodyPartFileNotReachable(at: fileURL)),
    .multipartEncodingFailed(reason: .bodyPartFileNotReachableWithError(atURL: fileURL, error: Cause(id: 4))),
    .multipartEncodingFailed(reason: .bodyPartFileIsDirectory(at: fileURL)),
    .multipartEncodingFailed(reason: .bodyPartFileSizeNotAvailable(at: fileURL)),
    .multipartEncodingFailed(reason: .bodyPartFileSizeQueryFailedWithError(forURL: fileURL, error: Cause(id: 5))),
    .multipartEncodingFailed(reason: .bodyPartInputStreamCreationFailed(for: fileURL)),
    .multipartEncodingFailed(reason: .outputStreamCreationFailed(for: fileURL)),
    .multipartEncodingFailed(reason: .outputStreamFileAlreadyExists(at: fileURL)),
    .multipartEncodingFailed(reason: .outputStreamURLInvalid(url: fileURL)),
    .multipartEncodingFailed(reason: .outputStreamWriteFailed(error: Cause(id: 6))),
    .multipartEncodingFailed(reason: .inputStreamReadFailed(error: AFError.UnexpectedInputStreamLength(bytesExpected: 2, bytesRead: 1))),
    .parameterEncodingFailed(reason: .missingURL),
    .parameterEncodingFailed(reason: .jsonEncodingFailed(error: Cause(id: 7))),
    .parameterEncodingFailed(reason: .customEncodingFailed(error: Cause(id: 8))),
    .parameterEncoderFailed(reason: .missingRequiredComponent(.url)),
    .parameterEncoderFailed(reason: .missingRequiredComponent(.httpMethod(rawValue: "nil"))),
    .parameterEncoderFailed(reason: .encoderFailed(error: Cause(id: 9))),
    .requestAdaptationFailed(error: Cause(id: 10)),
    .requestRetryFailed(retryError: Cause(id: 11), originalError: Cause(id: 12)),
    .responseValidationFailed(reason: .dataFileNil),
    .responseValidationFailed(reason: .dataFileReadFailed(at: fileURL)),
    .responseValidationFailed(reason: .missingContentType(acceptableContentTypes: ["a/b"])),
    .responseValidationFailed(reason: .unacceptableContentType(acceptableContentTypes: ["a/b"], responseContentType: "c/d")),
    .responseValidationFailed(reason: .unacceptableStatusCode(code: 418)),
    .responseValidationFailed(reason: .customValidationFailed(error: Cause(id: 13))),
    .responseSerializationFailed(reason: .inputDataNilOrZeroLength),
    .responseSerializationFailed(reason: .inputFileNil),
    .responseSerializationFailed(reason: .inputFileReadFailed(at: fileURL)),
    .responseSerializationFailed(reason: .stringSerializationFailed(encoding: .utf8)),
    .responseSerializationFailed(reason: .jsonSerializationFailed(error: Cause(id: 14))),
    .responseSerializationFailed(reason: .decodingFailed(error: Cause(id: 15))),
    .responseSerializationFailed(reason: .customSerializationFailed(error: Cause(id: 16))),
    .responseSerializationFailed(reason: .invalidEmptyResponse(type: "T")),
    .sessionDeinitialized,
    .sessionInvalidated(error: nil),
    .sessionInvalidated(error: Cause(id: 17)),
    .sessionTaskFailed(error: URLError.lariat(.timedOut, underlying: Cause(id: 18), url: failing)),
    .urlRequestValidationFailed(reason: .bodyDataInGETRequest(Data([1]))),
]

@Suite("AFError")
struct AFErrorTests {
    @Test("every case has a distinct, non-empty description", arguments: everyError)
    func descriptions(error: AFError) {
        let text = error.errorDescription ?? ""
        #expect(!text.isEmpty)
        #expect(error.description == text)
        #expect(error.localizedDescription == text)
        #expect(everyError.filter { $0.errorDescription == text }.count == 1, "duplicate: \(text)")
    }

    @Test("exactly one predicate is true per case", arguments: everyError)
    func predicates(error: AFError) {
        let flags = [
            error.isCreateUploadableError, error.isCreateURLRequestError, error.isDownloadedFileMoveError,
            error.isExplicitlyCancelledError, error.isInvalidURLError, error.isMultipartEncodingError,
            error.isParameterEncodingError, error.isParameterEncoderError, error.isRequestAdaptationError,
            error.isRequestRetryError, error.isResponseValidationError, error.isResponseSerializationError,
            error.isSessionDeinitializedError, error.isSessionInvalidatedError, error.isSessionTaskError,
            error.isURLRequestValidationError,
        ]
        #expect(flags.filter { $0 }.count == 1)
    }

    @Test("underlyingError returns the wrapped cause", arguments: [
        (AFError.createUploadableFailed(error: Cause(id: 1)), 1),
        (.downloadedFileMoveFailed(error: Cause(id: 3), source: fileURL, destination: fileURL), 3),
        (.multipartEncodingFailed(reason: .outputStreamWriteFailed(error: Cause(id: 6))), 6),
        (.parameterEncodingFailed(reason: .jsonEncodingFailed(error: Cause(id: 7))), 7),
        (.parameterEncoderFailed(reason: .encoderFailed(error: Cause(id: 9))), 9),
        (.requestRetryFailed(retryError: Cause(id: 11), originalError: Cause(id: 12)), 11),
        (.responseValidationFailed(reason: .customValidationFailed(error: Cause(id: 13))), 13),
        (.responseSerializationFailed(reason: .decodingFailed(error: Cause(id: 15))), 15),
        (.sessionInvalidated(error: Cause(id: 17)), 17),
    ])
    func underlying(error: AFError, id: Int) {
        #expect((error.underlyingError as? Cause)?.id == id)
    }

    @Test("no underlying error for cases without one", arguments: [
        AFError.explicitlyCancelled, .invalidURL(url: "x"), .sessionDeinitialized, .sessionInvalidated(error: nil),
        .parameterEncodingFailed(reason: .missingURL), .responseValidationFailed(reason: .unacceptableStatusCode(code: 500)),
    ])
    func noUnderlying(error: AFError) {
        #expect(error.underlyingError == nil)
    }

    @Test("validation accessors")
    func validationAccessors() {
        let contentType = AFError.responseValidationFailed(reason: .unacceptableContentType(acceptableContentTypes: ["a/b"], responseContentType: "c/d"))
        #expect(contentType.acceptableContentTypes == ["a/b"])
        #expect(contentType.responseContentType == "c/d")
        #expect(contentType.responseCode == nil)
        let status = AFError.responseValidationFailed(reason: .unacceptableStatusCode(code: 404))
        #expect(status.responseCode == 404)
        #expect(status.acceptableContentTypes == nil)
        #expect(AFError.responseValidationFailed(reason: .missingContentType(acceptableContentTypes: ["x/y"])).acceptableContentTypes == ["x/y"])
    }

    @Test("url accessor", arguments: [
        (AFError.multipartEncodingFailed(reason: .bodyPartFileIsDirectory(at: fileURL)), fileURL),
        (.responseSerializationFailed(reason: .inputFileReadFailed(at: fileURL)), fileURL),
        (.responseValidationFailed(reason: .dataFileReadFailed(at: fileURL)), fileURL),
        (.sessionTaskFailed(error: URLError.lariat(.timedOut, underlying: Cause(id: 1), url: failing)), failing),
        (.requestRetryFailed(retryError: Cause(id: 1), originalError: URLError.lariat(.timedOut, underlying: Cause(id: 1), url: failing)), failing),
        (.requestAdaptationFailed(error: AFError.sessionTaskFailed(error: URLError.lariat(.cancelled, underlying: Cause(id: 1), url: failing))), failing),
        (.explicitlyCancelled, nil),
        (.invalidURL(url: "x"), nil),
    ] as [(AFError, URL?)])
    func urlAccessor(error: AFError, expected: URL?) {
        #expect(error.url == expected)
    }

    @Test("download move and string encoding accessors")
    func otherAccessors() {
        let move = AFError.downloadedFileMoveFailed(error: Cause(id: 1), source: fileURL, destination: failing)
        #expect(move.sourceURL == fileURL && move.destinationURL == failing)
        #expect(AFError.explicitlyCancelled.sourceURL == nil)
        #expect(AFError.responseSerializationFailed(reason: .stringSerializationFailed(encoding: .ascii)).failedStringEncoding == .ascii)
        #expect(AFError.explicitlyCancelled.failedStringEncoding == nil)
        #expect(AFError.invalidURL(url: "u").urlConvertible as? String == "u")
    }

    @Test("asAFError casts")
    func asAFError() {
        let error: any Error = AFError.explicitlyCancelled
        #expect(error.asAFError?.isExplicitlyCancelledError == true)
        #expect((Cause(id: 1) as any Error).asAFError == nil)
        #expect(error.asAFError(orFailWith: "not AFError").isExplicitlyCancelledError)
        #expect(Cause(id: 1).asAFError(or: .sessionDeinitialized).isSessionDeinitializedError)
    }

    @Test("descriptions include the cause's text")
    func causeText() {
        let error = AFError.responseValidationFailed(reason: .unacceptableStatusCode(code: 418))
        #expect(error.localizedDescription.contains("418"))
        let wrapped = AFError.sessionTaskFailed(error: URLError(.timedOut))
        #expect(wrapped.localizedDescription.hasPrefix("The transfer failed: "))
    }
}
