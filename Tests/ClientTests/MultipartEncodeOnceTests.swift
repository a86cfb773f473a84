#if FullFoundation
import Foundation
#else
import FoundationEssentials
#endif
import Testing
@testable import Client

/// A form's parts are read once, as Alamofire's (each part is an input stream there): the first
/// encode succeeds, a second one finds the parts consumed and fails with a typed error rather than
/// sending a body that differs from the first.
@Suite("MultipartFormData encodes once")
struct MultipartEncodeOnceTests {
    /// The reason of the multipart failure `body` throws, or nil.
    private func reason(_ body: () throws -> Void) -> AFError.MultipartEncodingFailureReason? {
        do { try body() } catch let AFError.multipartEncodingFailed(reason) { return reason } catch {}
        return nil
    }

    @Test("a second encode fails as inputStreamReadFailed(UnexpectedInputStreamLength): in memory, then to a file",
          arguments: [false, true])
    func secondEncodeFails(secondToFile: Bool) throws {
        let form = MultipartFormData(boundary: "B")
        form.append(Data("twelve bytes".utf8), withName: "d")
        let first = try form.encode()
        #expect(String(decoding: first, as: UTF8.self).contains("\r\n\r\ntwelve bytes\r\n--B--"))
        let file = URL(fileURLWithPath: "/tmp/lariat-encode-once-\(UInt64.random(in: 0...UInt64.max))")
        defer { try? FileManager.default.removeItem(at: file) }
        let second = reason {
            if secondToFile { try form.writeEncodedData(to: file) } else { _ = try form.encode() }
        }
        guard case let .inputStreamReadFailed(error) = second else {
            Issue.record("second encode: \(String(describing: second))")
            return
        }
        let length = error as? AFError.UnexpectedInputStreamLength
        #expect(length?.bytesExpected == 12)
        #expect(length?.bytesRead == 0)
    }

    @Test("a form whose parts are all empty encodes again (nothing was there to consume)")
    func emptyPartsEncodeAgain() throws {
        let form = MultipartFormData(boundary: "B")
        form.append(Data(), withName: "empty")
        let first = try form.encode()
        #expect(try form.encode() == first)
    }
}
