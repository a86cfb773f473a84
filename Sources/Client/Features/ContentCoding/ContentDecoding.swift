/// Whether and within which limits a session decodes `Content-Encoding: gzip` and `deflate`
/// response bodies. Lariat's addition, set with ``URLSessionConfiguration/contentDecoding``.
///
/// Decoding is transparent, as URLSession's on Apple platforms: the body handed to serializers,
/// streams and download files is the decoded one, while the ``HTTPURLResponse`` keeps the
/// server's header fields unchanged (`Content-Encoding` stays, and `Content-Length`, hence
/// `expectedContentLength`, counts the encoded bytes). Like URLSession, a response is decoded
/// whenever its coding is one Lariat knows (`gzip`, `x-gzip`, `deflate`), also when the request
/// set its own `Accept-Encoding`. Anything else (`br`, `zstd`, a list of several codings, or a
/// `206 Partial Content`, whose bytes are a slice of the coded representation) is passed through
/// as received.
///
/// Decoding streams with constant memory (zlib's window plus a 64 KiB output buffer per
/// response). The limits stop a decompression bomb, a small body that expands to gigabytes,
/// with ``ContentDecodingError/Kind-swift.struct/expansionLimitExceeded``
/// (`URLError.dataLengthExceedsMaximum`) before the excess is delivered.
///
/// ```swift
/// let configuration = URLSessionConfiguration.af.default
/// configuration.contentDecoding.maxDecodedBytes = 512 * 1024 * 1024
/// let session = Session(configuration: configuration)
/// ```
public struct ContentDecoding: Sendable, Hashable {
    /// Whether coded bodies are decoded. `true` by default; `false` hands every body over as
    /// received (what curl does without `--compressed`). Turning decoding off does not change the
    /// `Accept-Encoding` a session sends: set the header too (``HTTPHeaders/default`` asks for
    /// `gzip` and `deflate`).
    public var isEnabled: Bool
    /// The most decoded bytes per encoded byte, checked once more than
    /// ``expansionRatioThreshold`` bytes were decoded. `100` by default (typical JSON and HTML
    /// compress 5-20 times; deflate's own ceiling is about 1,032, reached by runs of one byte,
    /// which is what bombs are made of). `nil`: no ratio limit. Values below 1 act as 1.
    public var maxExpansionRatio: Int?
    /// Decoded bytes below which the ratio is not checked: small, very compressible bodies (a
    /// kilobyte of gzip expanding to a megabyte of spaces) are fine. 1 MiB by default.
    public var expansionRatioThreshold: Int
    /// The most decoded bytes of one response body. `nil` by default: no absolute limit (the
    /// ratio still applies). Values below 0 act as 0.
    public var maxDecodedBytes: Int?

    /// Creates a configuration.
    /// - Parameters:
    ///   - isEnabled: Decode coded bodies. `true` by default.
    ///   - maxExpansionRatio: Decoded bytes per encoded byte allowed; `100` by default, `nil` for no limit.
    ///   - expansionRatioThreshold: Decoded bytes before the ratio is checked; 1 MiB by default.
    ///   - maxDecodedBytes: Decoded bytes allowed per body; `nil` (no limit) by default.
    public init(isEnabled: Bool = true, maxExpansionRatio: Int? = 100, expansionRatioThreshold: Int = 1 << 20,
                maxDecodedBytes: Int? = nil) {
        self.isEnabled = isEnabled
        self.maxExpansionRatio = maxExpansionRatio
        self.expansionRatioThreshold = expansionRatioThreshold
        self.maxDecodedBytes = maxDecodedBytes
    }

    /// Decoding on, with the default limits.
    public static var automatic: ContentDecoding { ContentDecoding() }
    /// Decoding off: bodies are delivered as received.
    public static var disabled: ContentDecoding { ContentDecoding(isEnabled: false) }

    /// The codings Lariat decodes, in preference order, as `Accept-Encoding` lists them.
    static let supportedCodings = ["gzip", "deflate"]

    /// Whether `decoded` bytes out of `encoded` consumed pass a limit; the limit's description if so.
    func exceededLimit(decoded: Int, encoded: Int) -> String? {
        if let maxDecodedBytes, decoded > Swift.max(0, maxDecodedBytes) {
            return "more than \(Swift.max(0, maxDecodedBytes)) decoded bytes (maxDecodedBytes)"
        }
        if let maxExpansionRatio, decoded > expansionRatioThreshold {
            let ratio = Swift.max(1, maxExpansionRatio)
            let (allowed, overflow) = Swift.max(1, encoded).multipliedReportingOverflow(by: ratio)
            if !overflow, decoded > allowed {
                return "\(decoded) decoded bytes from \(encoded) encoded, over the ratio \(ratio) (maxExpansionRatio)"
            }
        }
        return nil
    }
}
