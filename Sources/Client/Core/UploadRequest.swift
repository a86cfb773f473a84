#if FullFoundation
public import Foundation
#else
public import FoundationEssentials
#endif
import Synchronization
import EventLoop
import Transport

/// A ``DataRequest`` whose body is an upload: bytes, a file streamed from disk, or multipart form
/// data (encoded in memory below a threshold, else written to a temporary file and streamed).
///
/// A file body is read 256 KiB at a time as the socket drains: uploading a 100 MiB file holds
/// 256 KiB of it in memory. Its `Content-Length` is the file's size when the request starts.
public final class UploadRequest: DataRequest, @unchecked Sendable {
    /// What an upload sends.
    // @unchecked Sendable: `.stream` holds an InputStream (not Sendable under full Foundation),
    // which only the connection sending the request reads (see RequestBodyStream).
    public enum Uploadable: @unchecked Sendable {
        /// Bytes in memory.
        case data(Data)
        /// A file, sent whole; removed once the request finished when `shouldRemove` is true
        /// (multipart bodies written to a temporary file).
        case file(URL, shouldRemove: Bool)
        /// A stream, read as the socket drains: `Content-Length` when the request sets one (the
        /// stream must then produce exactly that many bytes), else `Transfer-Encoding: chunked`.
        case stream(InputStream)
    }

    /// How the uploadable is produced when the request starts.
    enum Source: Sendable {
        case uploadable(Uploadable)
        case multipart(MultipartFormData, threshold: UInt64)
    }

    let source: Source
    /// The file manager used for multipart temporary files and removal.
    public let fileManager: FileManager
    private let made = UploadableBox()
    /// Why this attempt's file body cannot be sent, if it cannot (see ``makeUploadBody(for:)``).
    private let bodyFailure = BodyFailureBox()

    init(convertible: any URLRequestConvertible, modifier: RequestModifier?, source: Source, fileManager: FileManager,
         interceptor: (any RequestInterceptor)? = nil, context: RequestContext) {
        self.source = source
        self.fileManager = fileManager
        super.init(builder: .convertible(convertible), modifier: modifier, interceptor: interceptor, context: context)
    }

    override var usesURLCache: Bool { false }  // an upload is never served from or stored in the cache

    override func makeTask(identifier: Int, for urlRequest: URLRequest) -> URLSessionTask {
        URLSessionUploadTask(taskIdentifier: identifier, request: urlRequest, owner: self)
    }

    /// The uploadable sent, once the request started.
    public var uploadable: Uploadable? { made.value }

    override func makeUploadBody(for request: inout URLRequest) throws -> RequestBody? {
        let uploadable: Uploadable
        switch source {
        case .uploadable(let given):
            uploadable = given
        case .multipart(let form, let threshold):
            request.headers.update(.contentType(form.contentType))
            uploadable = try MultipartUpload(form: form, threshold: threshold, fileManager: fileManager).createUploadable()
        }
        made.value = uploadable
        switch uploadable {
        case .data(let data):
            return .data(data)
        case .stream(let stream):
            return try Self.streamBody(stream, for: request)
        case .file(let url, _):
            // As URLSession's upload task from a file: the request is adapted and its task made
            // whatever the file is; one that cannot be sent fails the task when it runs
            // (`bodyRefusal`), with nothing on the wire.
            bodyFailure.value = nil
            guard url.isFileURL else { return refuseBody(URLError(.unsupportedURL), "\(url) is not a file URL") }
            // open(2) succeeds on a directory and read(2) then fails with EISDIR: the head would
            // go out with the directory's st_size as Content-Length before the body failed.
            var isDirectory = false
            if fileManager.fileExists(atPath: url.path, isDirectory: &isDirectory), isDirectory {
                return refuseBody(URLError(.fileIsDirectory), "\(url.path) is a directory")
            }
            do {
                let size = try File(path: url.path, mode: .read).size()
                return .file(path: url.path, length: size)
            } catch {
                return refuseBody(error, "cannot open \(url.path)")
            }
        }
    }

    /// Records why the body cannot be sent and returns an empty stand-in (never sent).
    private func refuseBody(_ error: any Error & Sendable, _ detail: String) -> RequestBody {
        bodyFailure.value = TransportError(.requestBodyUnreadable, detail, underlying: error)
        return .data(Data())
    }

    override var bodyRefusal: TransportError? { bodyFailure.value }

    /// A file body that could not be sent fails as `createUploadableFailed` with the file's error.
    override func error(for failure: TransportError, url: URL?) -> AFError {
        guard failure.kind == .requestBodyUnreadable, let refusal = bodyFailure.value, refusal.detail == failure.detail else {
            return super.error(for: failure, url: url)
        }
        return .createUploadableFailed(error: refusal.underlying ?? refusal)
    }

    /// Removes a multipart temporary file before the handlers run, whatever ended the request:
    /// the exchange's end or failure, a failed start, or a cancel before an exchange existed.
    override func didComplete() {
        removeTemporaryFile()
        super.didComplete()
    }

    /// Reports the uploadable made for this attempt (after the URLRequest, before the task).
    override func didCreateUploadable() {
        guard let uploadable = made.value else { return }
        if isMonitored(.didCreateUploadable) { emit(.didCreateUploadable) { [self] in $0.request(self, didCreateUploadable: uploadable) } }
        // Alamofire reports the stream when URLSession asks for it; Lariat hands it over here.
        // The Sendable `uploadable` is captured, not its InputStream (not Sendable under full Foundation).
        if case .stream = uploadable, isMonitored(.didProvideInputStream) {
            emit(.didProvideInputStream) { [self] in if case .stream(let stream) = uploadable { $0.request(self, didProvideInputStream: stream) } }
        }
    }

    /// Reports that the uploadable could not be made.
    override func didFailToCreateUploadable(_ error: AFError) {
        if isMonitored(.didFailToCreateUploadable) { emit(.didFailToCreateUploadable) { [self] in $0.request(self, didFailToCreateUploadableWithError: error) } }
    }

    private func removeTemporaryFile() {
        if case .file(let url, true)? = made.value { MultipartFormData.removeTemporaryFile(url, fileManager: fileManager) }
    }
}

/// Why an upload's file body cannot be sent; written when each attempt builds its body.
final class BodyFailureBox: Sendable {
    private let storage = Mutex<TransportError?>(nil)
    var value: TransportError? {
        get { storage.withLock { $0 } }
        set { storage.withLock { $0 = newValue } }
    }
}

/// The uploadable made when the request started; written once on the request's queue.
final class UploadableBox: Sendable {
    private let storage = Mutex<UploadRequest.Uploadable?>(nil)
    var value: UploadRequest.Uploadable? {
        get { storage.withLock { $0 } }
        set { storage.withLock { $0 = newValue } }
    }
}
