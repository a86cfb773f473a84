#if FullFoundation
public import Foundation
#else
public import FoundationEssentials
#endif

/// Puts `Encodable` parameters into a request: into its URL query or its body.
public protocol ParameterEncoder: Sendable {
    /// Returns `request` with `parameters` encoded into it.
    ///
    /// - Parameters:
    ///   - parameters: The parameters; `nil` returns the request unchanged.
    ///   - request:    The request to encode into.
    /// - Returns: The updated request.
    /// - Throws: An ``AFError``, normally ``AFError/parameterEncoderFailed(reason:)`` or
    ///   ``AFError/parameterEncodingFailed(reason:)``.
    func encode<Parameters: Encodable & Sendable>(_ parameters: Parameters?, into request: URLRequest) throws -> URLRequest
}

/// Encodes parameters as a JSON body with a `JSONEncoder`.
///
/// Sets `Content-Type: application/json` unless the request already has a `Content-Type`.
/// `open`, as in Alamofire: subclass it and override ``encode(_:into:)`` to customize.
///
/// `@unchecked Sendable` because Swift 6 lets a non-final class be `Sendable` only unchecked.
/// Safe: its only stored property is a `let` encoder that is configured before and never changed
/// after `init`; a subclass adding mutable state must guard it itself.
open class JSONParameterEncoder: @unchecked Sendable, ParameterEncoder {
    /// An encoder with a plain `JSONEncoder`.
    public static var `default`: JSONParameterEncoder { JSONParameterEncoder() }

    /// An encoder whose output is indented.
    public static var prettyPrinted: JSONParameterEncoder {
        let encoder = JSONEncoder()
        encoder.outputFormatting = .prettyPrinted
        return JSONParameterEncoder(encoder: encoder)
    }

    /// An encoder whose object keys are sorted, for byte-stable output.
    public static var sortedKeys: JSONParameterEncoder {
        let encoder = JSONEncoder()
        encoder.outputFormatting = .sortedKeys
        return JSONParameterEncoder(encoder: encoder)
    }

    /// The `JSONEncoder` used. Configure it before sharing the parameter encoder between threads.
    public let encoder: JSONEncoder

    /// Creates an encoder.
    ///
    /// - Parameter encoder: The `JSONEncoder` to use. A new default one by default.
    public init(encoder: JSONEncoder = JSONEncoder()) {
        self.encoder = encoder
    }

    /// Encodes `parameters` as the request body.
    ///
    /// - Parameters:
    ///   - parameters: The parameters; `nil` returns the request unchanged.
    ///   - request:    The request.
    /// - Returns: The request with the JSON body and, if it had none, a `Content-Type`.
    /// - Throws: ``AFError/parameterEncodingFailed(reason:)`` with
    ///   ``AFError/ParameterEncodingFailureReason/jsonEncodingFailed(error:)`` if encoding throws.
    open func encode<Parameters: Encodable & Sendable>(_ parameters: Parameters?, into request: URLRequest) throws -> URLRequest {
        guard let parameters else { return request }
        var request = request
        do {
            request.httpBody = try encoder.encode(parameters)
        } catch {
            throw AFError.parameterEncodingFailed(reason: .jsonEncodingFailed(error: error))
        }
        if request.headers["Content-Type"] == nil {
            request.headers.update(.contentType("application/json"))
        }
        return request
    }
}

extension ParameterEncoder where Self == JSONParameterEncoder {
    /// A ``JSONParameterEncoder`` with a default `JSONEncoder`.
    public static var json: JSONParameterEncoder { JSONParameterEncoder() }

    /// A ``JSONParameterEncoder`` using `encoder`.
    ///
    /// - Parameter encoder: The `JSONEncoder`. A new default one by default.
    /// - Returns: The parameter encoder.
    public static func json(encoder: JSONEncoder = JSONEncoder()) -> JSONParameterEncoder {
        JSONParameterEncoder(encoder: encoder)
    }
}

/// Encodes parameters as URL-encoded form text, in the query or the body.
///
/// For the body, sets `Content-Type: application/x-www-form-urlencoded; charset=utf-8` unless the
/// request has a `Content-Type`. For the query, appends to any existing query with `&`.
///
/// `open`, as in Alamofire; `@unchecked Sendable` on the same grounds as ``JSONParameterEncoder``:
/// its stored properties are `let`s of `Sendable` types, and subclasses guard any state they add.
open class URLEncodedFormParameterEncoder: @unchecked Sendable, ParameterEncoder {
    /// Where the encoded parameters go.
    public enum Destination: Sendable {
        /// The query for `GET`, `HEAD` and `DELETE`; the body otherwise.
        case methodDependent
        /// Always the query.
        case queryString
        /// Always the body.
        case httpBody

        /// Whether parameters for `method` go into the URL.
        func encodesParametersInURL(for method: HTTPMethod) -> Bool {
            switch self {
            case .methodDependent: [.get, .head, .delete].contains(method)
            case .queryString: true
            case .httpBody: false
            }
        }
    }

    /// An encoder with a default ``URLEncodedFormEncoder`` and ``Destination/methodDependent``.
    public static var `default`: URLEncodedFormParameterEncoder { URLEncodedFormParameterEncoder() }

    /// The form encoder used.
    public let encoder: URLEncodedFormEncoder

    /// Where the parameters go.
    public let destination: Destination

    /// Creates an encoder.
    ///
    /// - Parameters:
    ///   - encoder:     The form encoder. A new default one by default.
    ///   - destination: Where the parameters go. ``Destination/methodDependent`` by default.
    public init(encoder: URLEncodedFormEncoder = URLEncodedFormEncoder(), destination: Destination = .methodDependent) {
        self.encoder = encoder
        self.destination = destination
    }

    /// Encodes `parameters` into the request's query or body.
    ///
    /// - Parameters:
    ///   - parameters: The parameters; `nil` returns the request unchanged.
    ///   - request:    The request.
    /// - Returns: The updated request.
    /// - Throws: ``AFError/parameterEncoderFailed(reason:)``: `.missingRequiredComponent(.url)` if the
    ///   request has no URL or the new URL is invalid, `.encoderFailed(error:)` if form encoding throws.
    open func encode<Parameters: Encodable & Sendable>(_ parameters: Parameters?, into request: URLRequest) throws -> URLRequest {
        guard let parameters else { return request }
        var request = request
        guard let url = request.url else {
            throw AFError.parameterEncoderFailed(reason: .missingRequiredComponent(.url))
        }
        let method = request.method ?? .get
        if destination.encodesParametersInURL(for: method) {
            let query: String = try encodeForm { try encoder.encode(parameters) }
            guard let newURL = url.appendingPercentEncodedQuery(query) else {
                throw AFError.parameterEncoderFailed(reason: .missingRequiredComponent(.url))
            }
            request.url = newURL
        } else {
            if request.headers["Content-Type"] == nil {
                request.headers.update(.contentType("application/x-www-form-urlencoded; charset=utf-8"))
            }
            request.httpBody = try encodeForm { try encoder.encode(parameters) as Data }
        }
        return request
    }

    /// Runs the form encoder, wrapping its errors as ``AFError/ParameterEncoderFailureReason/encoderFailed(error:)``.
    private func encodeForm<Output>(_ encode: () throws -> Output) throws -> Output {
        do {
            return try encode()
        } catch {
            throw AFError.parameterEncoderFailed(reason: .encoderFailed(error: error))
        }
    }
}

extension ParameterEncoder where Self == URLEncodedFormParameterEncoder {
    /// A ``URLEncodedFormParameterEncoder`` with default settings.
    public static var urlEncodedForm: URLEncodedFormParameterEncoder { URLEncodedFormParameterEncoder() }

    /// A ``URLEncodedFormParameterEncoder`` with the given settings.
    ///
    /// - Parameters:
    ///   - encoder:     The form encoder. A new default one by default.
    ///   - destination: Where the parameters go. ``URLEncodedFormParameterEncoder/Destination/methodDependent`` by default.
    /// - Returns: The parameter encoder.
    public static func urlEncodedForm(
        encoder: URLEncodedFormEncoder = URLEncodedFormEncoder(),
        destination: URLEncodedFormParameterEncoder.Destination = .methodDependent
    ) -> URLEncodedFormParameterEncoder {
        URLEncodedFormParameterEncoder(encoder: encoder, destination: destination)
    }
}

extension URL {
    /// Returns the URL with `query` (already percent-encoded) appended to its query: after `?` if
    /// it has none, after `&` otherwise, and before any fragment.
    ///
    /// Works on the URL's text rather than `URLComponents`, whose `percentEncodedQuery` setter
    /// traps on characters it considers invalid.
    ///
    /// - Parameter query: The encoded query; empty returns the URL unchanged.
    /// - Returns: The new URL, or `nil` if the result does not parse.
    func appendingPercentEncodedQuery(_ query: String) -> URL? {
        guard !query.isEmpty else { return self }
        let text = absoluteString
        let fragmentStart = text.firstIndex(of: "#") ?? text.endIndex
        var base = String(text[..<fragmentStart])
        let fragment = text[fragmentStart...]
        if let questionMark = base.firstIndex(of: "?") {
            let existing = base[base.index(after: questionMark)...]
            base += existing.isEmpty || existing.hasSuffix("&") ? query : "&" + query
        } else {
            base += "?" + query
        }
        return URL(string: base + fragment)
    }
}
