// The request head as Lariat writes it, for tools that show what was sent (fetch -v): the same
// mapping from URLRequest to the transport's head and the same serializer as the connection
// uses, so the text is the bytes on the wire (Host first, framing fields last).

#if FullFoundation
import Foundation
#else
import FoundationEssentials
#endif
import Transport
import Wire

extension Session {
    /// The bytes of the request head this session writes for `request` (request line, fields,
    /// blank line), or `nil` if the request cannot be sent (a refused request has no head).
    ///
    /// - Parameters:
    ///   - request: The request as sent (after adapters), for example `DataResponse.request`.
    ///   - uploadBody: The body an upload sent from outside the URLRequest (a file or a stream,
    ///     ``DataStreamRequest/uploadBody``), which decides the framing fields; `nil` for
    ///     `request.httpBody`.
    /// - Returns: The head's bytes, CRLF line ends included.
    package func serializedRequestHead(for request: URLRequest, uploadBody: RequestBody? = nil) -> [UInt8]? {
        guard let transport = try? transportRequest(for: request, uploadBody: uploadBody), transport.refusal == nil else { return nil }
        return try? RequestSerializer.serialize(transport.head)
    }
}
