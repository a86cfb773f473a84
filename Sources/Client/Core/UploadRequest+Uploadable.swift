#if FullFoundation
import Foundation
#else
import FoundationEssentials
#endif

/// Something that produces an upload's body (Alamofire's protocol; ``UploadRequest/Uploadable`` conforms).
public protocol UploadableConvertible: Sendable {
    /// Produces the body.
    /// - Throws: Any error producing it (the request fails with `AFError.createUploadableFailed`).
    func createUploadable() throws -> UploadRequest.Uploadable
}

/// Something that produces both an upload's body and its URLRequest.
public protocol UploadConvertible: UploadableConvertible & URLRequestConvertible {}

extension UploadRequest.Uploadable: UploadableConvertible {
    /// Itself.
    public func createUploadable() throws -> UploadRequest.Uploadable { self }
}

extension UploadRequest {
    /// What the request was created to upload: the ``Uploadable`` given, or the multipart form
    /// (whose ``UploadableConvertible/createUploadable()`` encodes it in memory below the request's
    /// threshold, else into a temporary file).
    public var upload: any UploadableConvertible {
        switch source {
        case .uploadable(let uploadable): return uploadable
        case .multipart(let form, let threshold): return MultipartUpload(form: form, threshold: threshold, fileManager: fileManager)
        }
    }
}

/// A multipart form as an ``UploadableConvertible``.
struct MultipartUpload: UploadableConvertible {
    let form: MultipartFormData
    let threshold: UInt64
    let fileManager: FileManager

    func createUploadable() throws -> UploadRequest.Uploadable {
        if form.contentLength < threshold { return .data(try form.encode(consuming: false)) }
        let base = fileManager.temporaryDirectory
        guard let file = try? MultipartFormData.makeTemporaryFileURL(in: base) else {
            throw AFError.multipartEncodingFailed(reason: .outputStreamCreationFailed(for: base))
        }
        do {
            try form.writeEncodedData(to: file, consuming: false)
        } catch {
            MultipartFormData.removeTemporaryFile(file, fileManager: fileManager)
            throw error
        }
        return .file(file, shouldRemove: true)
    }
}

extension Session {
    /// Modifies a URLRequest before it is sent (the same type as the top-level ``RequestModifier``).
    public typealias RequestModifier = @Sendable (inout URLRequest) throws -> Void
}

/// Alamofire's version information.
public enum AFInfo {
    /// The Alamofire release whose public API Client mirrors.
    public static let version = "5.12.0"
}
