// Failures curl 7.88 words itself, recognised by the Wire rule behind Client's error:
//   truncated-body            18 "transfer closed with N bytes remaining to read" (Content-Length
//                             known) or "transfer closed with outstanding read data remaining"
//   header-section-too-large  27, curl 7.88's status for a head past its buffer (its message is
//                             "Out of memory"; fetch says what happened, once: the sentence
//                             used to read "malformed response: malformed response: …")
//   content-length            8 "Invalid Content-Length: value" for a letter or an empty value
//                             (curl 7.88 reads "12a" as 12 and 20 digits as no length: fetch
//                             refuses both, with its own sentence)
//   version (no `HTTP/`)      1 "Received HTTP/0.9 when not allowed": curl 7.88 reads a response
//                             without a status line as HTTP/0.9 and refuses it unless --http0.9
//                             (ResponseFraming.swift)
// The rule comes typed from Client's TransportError (`wireRule`, `wireDetail`).
import Client
#if FullFoundation
import Foundation  // URLError is Foundation's own in the default build; Client's without the trait
#endif
import Transport

extension TransferErrors {
    /// The Wire rule behind `error` and its detail, if the transport failed on one.
    static func wireRule(in error: AFError) -> (rule: String, detail: String)? {
        guard case .sessionTaskFailed(let underlying) = error,
              let transport = (underlying as? URLError)?.underlyingError as? TransportError,
              let rule = transport.wireRule else { return nil }
        return (rule, transport.wireDetail ?? "")
    }

    /// curl's status and message for `error`, where curl words it differently from the general
    /// mapping; `bodySize` is what was received of the body.
    static func curlWording(for error: AFError, response: HTTPURLResponse?, bodySize: Int) -> (status: Int32, message: String)? {
        guard let wire = wireRule(in: error) else { return nil }
        switch wire.rule {
        case "truncated-body":
            if let length = response?.headers.value(for: "Content-Length").flatMap(Int.init), length > bodySize {
                return (18, "transfer closed with \(length - bodySize) bytes remaining to read")
            }
            return (18, "transfer closed with outstanding read data remaining")
        case "header-section-too-large":
            return (27, "Too large response headers: \(wire.detail)")
        case "content-length" where wire.detail.hasPrefix("invalid character") || wire.detail == "empty Content-Length":
            return (8, "Invalid Content-Length: value")
        case "version" where wire.detail.hasPrefix("response does not start with HTTP/"):
            return (1, "Received HTTP/0.9 when not allowed")
        default:
            return nil
        }
    }
}
