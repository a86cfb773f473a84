#if FullFoundation
import Foundation
#else
import FoundationEssentials
#endif

/// Why a content-coded response body (`Content-Encoding: gzip` or `deflate`) could not be decoded.
///
/// Lariat's addition. It reaches users as the underlying error of the `URLError` inside
/// ``AFError/sessionTaskFailed(error:)``: `URLError.cannotDecodeRawData` for a corrupt or truncated
/// body (Apple's code for "could not be decoded for a known content encoding"), and
/// `URLError.dataLengthExceedsMaximum` when the decoded body passed a ``ContentDecoding`` limit.
/// A body that fails to decode is never delivered as a shorter success.
public struct ContentDecodingError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The class of failure. A struct of static members rather than an enum, so kinds can be
    /// added without breaking anyone's `switch`.
    public struct Kind: Hashable, Sendable, CustomStringConvertible {
        private let name: String
        private init(_ name: String) { self.name = name }
        /// The name of the kind.
        public var description: String { name }
        /// The bytes are not valid for the coding: a bad header, an invalid deflate block, a gzip
        /// trailer whose CRC-32 or length does not match, a zlib Adler-32 mismatch, or a preset
        /// dictionary (which HTTP never uses). `URLError.cannotDecodeRawData`.
        public static let corrupt = Kind("corrupt")
        /// The body ended inside a compressed stream: its end or trailer never came.
        /// `URLError.cannotDecodeRawData`.
        public static let truncated = Kind("truncated")
        /// Bytes followed the end of a deflate stream. `URLError.cannotDecodeRawData`. (After a
        /// gzip member, more bytes must be another member; anything else is ``corrupt``.)
        public static let trailingData = Kind("trailing data")
        /// The decoded body passed ``ContentDecoding/maxDecodedBytes`` or
        /// ``ContentDecoding/maxExpansionRatio``: a decompression bomb, stopped before its output
        /// is kept. `URLError.dataLengthExceedsMaximum`.
        public static let expansionLimitExceeded = Kind("expansion limit exceeded")
    }

    /// What went wrong.
    public let kind: Kind
    /// The coding being decoded, as the response's `Content-Encoding` named it (`gzip`, `x-gzip`, `deflate`).
    public let coding: String
    /// Encoded bytes consumed when the failure was found.
    public let encodedOffset: Int
    /// Decoded bytes produced when the failure was found.
    public let decodedCount: Int
    /// A readable explanation (zlib's message for corrupt data, the limit for a bomb).
    public let detail: String

    init(_ kind: Kind, coding: String, encodedOffset: Int, decodedCount: Int, detail: String) {
        self.kind = kind
        self.coding = coding
        self.encodedOffset = encodedOffset
        self.decodedCount = decodedCount
        self.detail = detail
    }

    /// `"<coding> body <kind> at encoded byte <offset>: <detail>"`.
    public var description: String {
        "\(coding) body \(kind) at encoded byte \(encodedOffset) (\(decodedCount) decoded): \(detail)"
    }

    /// The `URLError.Code` Lariat reports this failure with.
    var urlErrorCode: URLError.Code {
        kind == .expansionLimitExceeded ? .dataLengthExceedsMaximum : .cannotDecodeRawData
    }
}
