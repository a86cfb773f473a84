#if FullFoundation
import Foundation
#else
import FoundationEssentials
#endif

/// One HTTP header field: a name and a value.
///
/// Equality is exact (name spelling included); lookups in ``HTTPHeaders`` are what ignore case.
public struct HTTPHeader: Equatable, Hashable, Sendable {
    /// The field name, as it will be written.
    public let name: String

    /// The field value, as it will be written.
    public let value: String

    /// Creates a field.
    ///
    /// - Parameters:
    ///   - name:  The field name.
    ///   - value: The field value.
    public init(name: String, value: String) {
        self.name = name
        self.value = value
    }

    /// Whether this field's name equals `other`, ignoring ASCII case.
    func hasName(_ other: String) -> Bool {
        name.utf8.elementsEqual(other.utf8) { asciiLowercased($0) == asciiLowercased($1) }
    }
}

/// Folds an ASCII upper-case letter to lower case; other bytes pass through. Field names are
/// tokens (RFC 9110 §5.6.2), so ASCII folding is the whole of their case-insensitivity.
private func asciiLowercased(_ byte: UInt8) -> UInt8 {
    (0x41...0x5A).contains(byte) ? byte | 0x20 : byte
}

extension HTTPHeader: CustomStringConvertible {
    /// `Name: Value`.
    public var description: String { "\(name): \(value)" }
}

extension HTTPHeader {
    /// An `Accept` field.
    ///
    /// - Parameter value: The accepted media ranges, for example `application/json`.
    /// - Returns: The field.
    public static func accept(_ value: String) -> HTTPHeader {
        HTTPHeader(name: "Accept", value: value)
    }

    /// An `Accept-Charset` field.
    ///
    /// - Parameter value: The accepted charsets, for example `utf-8`.
    /// - Returns: The field.
    public static func acceptCharset(_ value: String) -> HTTPHeader {
        HTTPHeader(name: "Accept-Charset", value: value)
    }

    /// An `Accept-Language` field.
    ///
    /// - Parameter value: The accepted languages, for example `en;q=1.0, fr;q=0.9`.
    /// - Returns: The field.
    public static func acceptLanguage(_ value: String) -> HTTPHeader {
        HTTPHeader(name: "Accept-Language", value: value)
    }

    /// An `Accept-Encoding` field.
    ///
    /// Lariat does not decompress response bodies yet: if you ask for `gzip` here, you receive the
    /// compressed bytes as-is.
    ///
    /// - Parameter value: The accepted content codings.
    /// - Returns: The field.
    public static func acceptEncoding(_ value: String) -> HTTPHeader {
        HTTPHeader(name: "Accept-Encoding", value: value)
    }

    /// A `Basic` `Authorization` field (RFC 7617).
    ///
    /// - Parameters:
    ///   - username: The user name; must not contain `:`.
    ///   - password: The password.
    /// - Returns: The field, with `username:password` Base64-encoded from UTF-8.
    public static func authorization(username: String, password: String) -> HTTPHeader {
        let credential = Data("\(username):\(password)".utf8).base64EncodedString()
        return authorization("Basic \(credential)")
    }

    /// A `Bearer` `Authorization` field (RFC 6750).
    ///
    /// - Parameter bearerToken: The token, sent as given.
    /// - Returns: The field.
    public static func authorization(bearerToken: String) -> HTTPHeader {
        authorization("Bearer \(bearerToken)")
    }

    /// An `Authorization` field with a complete value.
    ///
    /// - Parameter value: The scheme and credentials, for example `Bearer abc`.
    /// - Returns: The field.
    public static func authorization(_ value: String) -> HTTPHeader {
        HTTPHeader(name: "Authorization", value: value)
    }

    /// A `Content-Disposition` field.
    ///
    /// - Parameter value: The disposition, for example `form-data; name="file"`.
    /// - Returns: The field.
    public static func contentDisposition(_ value: String) -> HTTPHeader {
        HTTPHeader(name: "Content-Disposition", value: value)
    }

    /// A `Content-Encoding` field.
    ///
    /// - Parameter value: The content coding of the body you send, for example `gzip`.
    /// - Returns: The field.
    public static func contentEncoding(_ value: String) -> HTTPHeader {
        HTTPHeader(name: "Content-Encoding", value: value)
    }

    /// A `Content-Type` field.
    ///
    /// - Parameter value: The media type of the body, for example `application/json`.
    /// - Returns: The field.
    public static func contentType(_ value: String) -> HTTPHeader {
        HTTPHeader(name: "Content-Type", value: value)
    }

    /// A `User-Agent` field.
    ///
    /// - Parameter value: The product tokens identifying the client.
    /// - Returns: The field.
    public static func userAgent(_ value: String) -> HTTPHeader {
        HTTPHeader(name: "User-Agent", value: value)
    }

    /// A `Sec-WebSocket-Protocol` field.
    ///
    /// - Parameter value: The requested subprotocols.
    /// - Returns: The field.
    public static func websocketProtocol(_ value: String) -> HTTPHeader {
        HTTPHeader(name: "Sec-WebSocket-Protocol", value: value)
    }
}

extension HTTPHeader {
    /// `Accept-Encoding: gzip;q=1.0, deflate;q=0.9`: the codings Lariat decodes (see
    /// ``ContentDecoding``).
    ///
    /// Alamofire sends `br;q=1.0, gzip;q=0.9, deflate;q=0.8`, what URLSession decodes on Apple
    /// platforms. Lariat does not decode Brotli (see the README's "Content coding"), so it does
    /// not ask for it.
    public static let defaultAcceptEncoding: HTTPHeader = .acceptEncoding(
        ContentDecoding.supportedCodings.qualityEncoded()
    )

    /// `Accept-Language` built from the process's preferred languages (at most six), with
    /// decreasing quality values: `en-US;q=1.0, fr;q=0.9`.
    public static let defaultAcceptLanguage: HTTPHeader = .acceptLanguage(
        Locale.preferredLanguages.prefix(6).qualityEncoded()
    )

    /// `User-Agent` in Alamofire's layout, naming the program, the system and the library:
    /// `fetch/Unknown (Unknown; build:Unknown; Linux 6.1.0) Alamofire/5.12.0 Lariat/0.1`.
    ///
    /// Alamofire takes the executable, version, bundle identifier and build from the app's
    /// bundle; a Linux program has no bundle, so the executable is the process name and the
    /// others are read from `Bundle.main`'s Info.plist if there is one (with the `FullFoundation`
    /// trait), else `Unknown`, Alamofire's own fallback. The system is the kernel's version.
    /// `Alamofire/5.12.0` says which API servers talk to; `Lariat/0.1` which implementation.
    public static let defaultUserAgent: HTTPHeader = .userAgent(UserAgent.make())
}

/// The parts of ``HTTPHeader/defaultUserAgent``.
enum UserAgent {
    /// Lariat's own product token.
    static let lariat = "Lariat/0.1"

    static func make() -> String {
        let info = ProcessInfo.processInfo
        let version = info.operatingSystemVersion
        let system = "Linux \(version.majorVersion).\(version.minorVersion).\(version.patchVersion)"
        let fields = bundleFields()
        let executable = fields.executable ?? info.processName
        return "\(executable)/\(fields.version ?? "Unknown") (\(fields.identifier ?? "Unknown"); "
            + "build:\(fields.build ?? "Unknown"); \(system)) Alamofire/\(AFInfo.version) \(lariat)"
    }

    /// The main bundle's executable, short version, identifier and build, where it has them.
    private static func bundleFields() -> (executable: String?, version: String?, identifier: String?, build: String?) {
        #if FullFoundation
        let info = Bundle.main.infoDictionary
        return (info?["CFBundleExecutable"] as? String, info?["CFBundleShortVersionString"] as? String,
                Bundle.main.bundleIdentifier, info?["CFBundleVersion"] as? String)
        #else
        return (nil, nil, nil, nil)
        #endif
    }
}

extension HTTPHeaders {
    /// The fields every ``Session`` sends unless told otherwise: ``HTTPHeader/defaultAcceptEncoding``,
    /// ``HTTPHeader/defaultAcceptLanguage`` and ``HTTPHeader/defaultUserAgent``.
    public static let `default`: HTTPHeaders = [
        .defaultAcceptEncoding,
        .defaultAcceptLanguage,
        .defaultUserAgent,
    ]
}

extension Collection<String> {
    /// Joins the elements as a quality-ranked list: the first gets `q=1.0`, each next one 0.1 less,
    /// never below `q=0.1` (RFC 9110 §12.4.2 allows at most three decimals; one is enough here).
    func qualityEncoded() -> String {
        enumerated().map { index, value in
            let tenths = Swift.max(10 - index, 1)
            return "\(value);q=\(tenths / 10).\(tenths % 10)"
        }.joined(separator: ", ")
    }
}
