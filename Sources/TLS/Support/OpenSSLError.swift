internal import COpenSSL

/// One entry of OpenSSL's thread-local error queue, copied out as a value.
///
/// OpenSSL reports failures by pushing packed codes onto a per-thread queue. TLS drains
/// that queue right after each failing call (see ``TLSError/openSSLErrors``) so the
/// reasons travel with the error instead of leaking into the next operation.
public struct OpenSSLError: Sendable, Hashable, CustomStringConvertible {
    /// The packed error code as returned by `ERR_get_error` (library and reason bits).
    public let code: UInt

    /// The library part of ``code`` (`ERR_LIB_SSL` is 20, `ERR_LIB_X509` is 11, ...).
    public let library: Int32

    /// The reason part of ``code`` (for example `SSL_R_UNSUPPORTED_PROTOCOL`).
    public let reason: Int32

    /// OpenSSL's text for the code, such as `error:0A000102:SSL routines::unsupported protocol`.
    public let message: String

    /// Extra detail OpenSSL attached to the entry (for example the alert number), or an empty string.
    public let detail: String

    /// A one-line rendering: the message, then the detail when there is one.
    public var description: String { detail.isEmpty ? message : "\(message) (\(detail))" }

    init(code: UInt, detail: String) {
        self.code = code
        self.library = lariat_ERR_GET_LIB(code)
        self.reason = lariat_ERR_GET_REASON(code)
        var buffer = [CChar](repeating: 0, count: 256)
        ERR_error_string_n(code, &buffer, buffer.count)
        self.message = String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
        self.detail = detail
    }

    /// Empties the calling thread's OpenSSL error queue and returns its entries, oldest first.
    ///
    /// - Returns: the drained entries; empty when the queue was empty.
    static func drain() -> [OpenSSLError] {
        var errors: [OpenSSLError] = []
        while true {
            var data: UnsafePointer<CChar>? = nil
            var flags: Int32 = 0
            let code = ERR_get_error_all(nil, nil, nil, &data, &flags)
            if code == 0 { break }
            // ERR_TXT_STRING marks `data` as text; anything else is opaque to us.
            let detail = (flags & ERR_TXT_STRING) != 0 ? OpenSSLAccessors.string(data) ?? "" : ""
            // Bound what a misbehaving peer can make us keep (one error per record at most,
            // but be defensive): 32 entries is far more than any real failure produces.
            if errors.count < 32 { errors.append(OpenSSLError(code: code, detail: detail)) }
        }
        return errors
    }
}
