#if FullFoundation
public import Foundation
#else
public import FoundationEssentials
#endif

extension AFError {
    /// Why ``AFError/multipartEncodingFailed(reason:)`` happened.
    public enum MultipartEncodingFailureReason: Sendable {
        /// A body part's URL is not a `file:` URL.
        case bodyPartURLInvalid(url: URL)
        /// A body part's file URL has an empty last path component or extension.
        case bodyPartFilenameInvalid(in: URL)
        /// A body part's file could not be reached.
        case bodyPartFileNotReachable(at: URL)
        /// Checking whether a body part's file is reachable threw.
        case bodyPartFileNotReachableWithError(atURL: URL, error: any Error)
        /// A body part's file URL names a directory.
        case bodyPartFileIsDirectory(at: URL)
        /// A body part file's size could not be read.
        case bodyPartFileSizeNotAvailable(at: URL)
        /// Reading a body part file's size threw.
        case bodyPartFileSizeQueryFailedWithError(forURL: URL, error: any Error)
        /// An input stream could not be created for a body part file.
        case bodyPartInputStreamCreationFailed(for: URL)
        /// An output stream could not be created to write the encoded form to disk.
        case outputStreamCreationFailed(for: URL)
        /// A file already exists where the encoded form was to be written.
        case outputStreamFileAlreadyExists(at: URL)
        /// The URL for writing the encoded form is not a `file:` URL.
        case outputStreamURLInvalid(url: URL)
        /// Writing the encoded form to disk failed.
        case outputStreamWriteFailed(error: any Error)
        /// Reading a body part's input stream failed.
        case inputStreamReadFailed(error: any Error)
    }

    /// An input stream yielded a different number of bytes than announced; carried by
    /// ``MultipartEncodingFailureReason/inputStreamReadFailed(error:)``.
    public struct UnexpectedInputStreamLength: Error, Sendable {
        /// The number of bytes expected.
        public var bytesExpected: UInt64
        /// The number of bytes actually read.
        public var bytesRead: UInt64

        /// Creates a value.
        ///
        /// - Parameters:
        ///   - bytesExpected: The number of bytes expected.
        ///   - bytesRead:     The number of bytes actually read.
        public init(bytesExpected: UInt64, bytesRead: UInt64) {
            self.bytesExpected = bytesExpected
            self.bytesRead = bytesRead
        }
    }

    /// Why ``AFError/parameterEncodingFailed(reason:)`` happened.
    public enum ParameterEncodingFailureReason: Sendable {
        /// The request had no URL to put the parameters in.
        case missingURL
        /// JSON serialization of the parameters threw.
        case jsonEncodingFailed(error: any Error)
        /// A custom ``ParameterEncoding`` threw.
        case customEncodingFailed(error: any Error)
    }

    /// Why ``AFError/parameterEncoderFailed(reason:)`` happened.
    public enum ParameterEncoderFailureReason: Sendable {
        /// A request component the encoder needs.
        public enum RequiredComponent: Sendable {
            /// The URL was missing, or could not be rebuilt with the encoded query.
            case url
            /// The method could not be read from the request; `rawValue` is what was found.
            case httpMethod(rawValue: String)
        }

        /// The request lacked a component the encoder needs.
        case missingRequiredComponent(RequiredComponent)
        /// The underlying encoder threw.
        case encoderFailed(error: any Error)
    }

    /// Why ``AFError/responseValidationFailed(reason:)`` happened.
    public enum ResponseValidationFailureReason: Sendable {
        /// A download had no file to validate.
        case dataFileNil
        /// A download's file could not be read.
        case dataFileReadFailed(at: URL)
        /// The response had no `Content-Type`, and no acceptable type was a wildcard.
        case missingContentType(acceptableContentTypes: [String])
        /// The response's `Content-Type` matched none of the acceptable types.
        case unacceptableContentType(acceptableContentTypes: [String], responseContentType: String)
        /// The response's status code was not acceptable.
        case unacceptableStatusCode(code: Int)
        /// A custom validation closure failed with this error.
        case customValidationFailed(error: any Error)
    }

    /// Why ``AFError/responseSerializationFailed(reason:)`` happened.
    public enum ResponseSerializationFailureReason: Sendable {
        /// The body was missing or empty, and the request and response did not allow that.
        case inputDataNilOrZeroLength
        /// A download had no file to serialize.
        case inputFileNil
        /// A download's file could not be read.
        case inputFileReadFailed(at: URL)
        /// The body was not valid text in this encoding.
        case stringSerializationFailed(encoding: String.Encoding)
        /// JSON serialization threw.
        case jsonSerializationFailed(error: any Error)
        /// A ``DataDecoder`` threw while decoding the body.
        case decodingFailed(error: any Error)
        /// A custom serializer threw.
        case customSerializationFailed(error: any Error)
        /// The body was empty (and that was allowed), but the type cannot be empty: it does not
        /// conform to ``EmptyResponse``. `type` names the type.
        case invalidEmptyResponse(type: String)
    }

    /// Why ``AFError/urlRequestValidationFailed(reason:)`` happened.
    public enum URLRequestValidationFailureReason: Sendable {
        /// A `GET` request had body bytes, which are attached here.
        case bodyDataInGETRequest(Data)
    }
}
