#if FullFoundation
import Foundation
#else
import FoundationEssentials
#endif
import Glibc
import Testing
@testable import Client

private func temporaryFile(_ name: String, contents: Data) throws -> URL {
    let directory = URL(fileURLWithPath: "/tmp/lariat-multipart-\(UInt64.random(in: 0...UInt64.max))")
    try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
    let url = directory.appendingPathComponent(name)
    try contents.write(to: url)
    return url
}

/// The multipart reason of an error thrown by `body`, or nil.
private func multipartReason(_ body: () throws -> Any) -> AFError.MultipartEncodingFailureReason? {
    do {
        _ = try body()
        return nil
    } catch let AFError.multipartEncodingFailed(reason) {
        return reason
    } catch {
        return nil
    }
}

@Suite("MultipartFormData")
struct MultipartFormDataTests {
    @Test("data parts encode with boundaries, headers and CRLFs (RFC 7578)")
    func dataParts() throws {
        let form = MultipartFormData(boundary: "B")
        form.append(Data("v1".utf8), withName: "a")
        form.append(Data("v2".utf8), withName: "f", fileName: "x.txt", mimeType: "text/plain")
        let expected = "--B\r\nContent-Disposition: form-data; name=\"a\"\r\n\r\nv1\r\n"
            + "--B\r\nContent-Disposition: form-data; name=\"f\"; filename=\"x.txt\"\r\nContent-Type: text/plain\r\n\r\nv2\r\n"
            + "--B--\r\n"
        let body = try form.encode()
        #expect(String(decoding: body, as: UTF8.self) == expected)
        #expect(form.encodedLength == UInt64(body.count))
        #expect(form.contentType == "multipart/form-data; boundary=B")
    }

    @Test("contentLength counts the parts' contents only, as Alamofire; encodedLength the whole body")
    func contentLengthIsContentsOnly() throws {
        let form = MultipartFormData(boundary: "B")
        form.append(Data("12345".utf8), withName: "a")
        form.append(Data("678".utf8), withName: "b", fileName: "b.txt", mimeType: "text/plain")
        #expect(form.contentLength == 8)
        #expect(form.encodedLength == UInt64(try form.encode().count))
    }

    @Test("an empty form encodes to nothing")
    func empty() throws {
        let form = MultipartFormData()
        #expect(try form.encode().isEmpty)
        #expect(form.contentLength == 0)
        #expect(form.boundary.hasPrefix("lariat.boundary."))
        #expect(form.boundary.utf8.count == "alamofire.boundary.".utf8.count + 16, "as long as Alamofire's, so encoded sizes match")
    }

    @Test("names are escaped like browsers do", arguments: [("a\"b", "a%22b"), ("l1\nl2", "l1%0Al2"), ("c\rd", "c%0Dd"), ("plain", "plain")])
    func nameEscaping(name: String, expected: String) {
        #expect(MultipartFormData.quoted(name) == expected)
    }

    @Test("file parts are named and typed after the file and streamed")
    func fileParts() throws {
        let contents = Data((0..<5000).map { UInt8(truncatingIfNeeded: $0) })
        let url = try temporaryFile("photo.PNG", contents: contents)
        defer { try? FileManager.default.removeItem(at: url.deletingLastPathComponent()) }
        let form = MultipartFormData(boundary: "B")
        form.append(url, withName: "p")
        let body = try form.encode()
        let head = Data("--B\r\nContent-Disposition: form-data; name=\"p\"; filename=\"photo.PNG\"\r\nContent-Type: image/png\r\n\r\n".utf8)
        #expect(body == head + contents + Data("\r\n--B--\r\n".utf8))
        #expect(form.encodedLength == UInt64(body.count))
    }

    @Test("file problems are reported by encode")
    func fileErrors() throws {
        let directory = URL(fileURLWithPath: "/tmp")
        let checks: [(URL, (AFError.MultipartEncodingFailureReason) -> Bool)] = [
            (URL(string: "https://example.com/a.txt")!, { if case .bodyPartURLInvalid = $0 { true } else { false } }),
            (URL(fileURLWithPath: "/tmp/noextension"), { if case .bodyPartFilenameInvalid = $0 { true } else { false } }),
            // Alamofire's reason for a missing file carries the error (MultipartFormDataFailureTestCase).
            (URL(fileURLWithPath: "/nonexistent/a.txt"), {
                if case let .bodyPartFileNotReachableWithError(url, error) = $0 {
                    url.path == "/nonexistent/a.txt" && (error as? POSIXError)?.code == .ENOENT
                } else { false }
            }),
        ]
        for (url, matches) in checks {
            let form = MultipartFormData()
            form.append(url, withName: "f")
            let reason = multipartReason { try form.encode() }
            #expect(reason.map(matches) == true, "\(url): \(String(describing: reason))")
        }
        let form = MultipartFormData()
        form.append(directory, withName: "d", fileName: "d", mimeType: "x/y")
        let reason = multipartReason { try form.encode() }
        #expect(reason.map { if case .bodyPartFileIsDirectory = $0 { true } else { false } } == true)
    }

    // A longer stream is cut at the declared length, as Alamofire ("RespectingBodyLength"); it
    // failed before. A shorter one cannot fill the declared length and fails.
    @Test("stream parts yield the declared length: a longer stream is cut there, a shorter one fails",
          arguments: [(3, "abc"), (2, "ab"), (4, nil)] as [(UInt64, String?)])
    func streamLength(declared: UInt64, content: String?) {
        let form = MultipartFormData(boundary: "B")
        form.append(InputStream(data: Data("abc".utf8)), withLength: declared, name: "s", fileName: "s.bin", mimeType: "application/octet-stream")
        let result = Result { try form.encode() }
        if let content {
            #expect((try? result.get()).map { String(decoding: $0, as: UTF8.self).contains("\r\n\r\n\(content)\r\n--B--") } == true)
        } else {
            let reason = multipartReason { try result.get() }
            guard case let .inputStreamReadFailed(error) = reason else {
                Issue.record("unexpected \(String(describing: reason))")
                return
            }
            #expect((error as? AFError.UnexpectedInputStreamLength)?.bytesExpected == declared)
        }
    }

    @Test("writeEncodedData writes the same bytes as encode, and refuses to overwrite")
    func writeToFile() throws {
        let form = MultipartFormData(boundary: "B")
        form.append(Data("v".utf8), withName: "a")
        let target = URL(fileURLWithPath: "/tmp/lariat-multipart-out-\(UInt64.random(in: 0...UInt64.max))")
        defer { try? FileManager.default.removeItem(at: target) }
        try form.writeEncodedData(to: target)
        // A form is encoded once (MultipartEncodeOnceTests): the same parts again, in memory.
        let same = MultipartFormData(boundary: "B")
        same.append(Data("v".utf8), withName: "a")
        #expect(try Data(contentsOf: target) == same.encode())
        let again = multipartReason { try form.writeEncodedData(to: target) }
        #expect(again.map { if case .outputStreamFileAlreadyExists = $0 { true } else { false } } == true)
        let remote = multipartReason { try form.writeEncodedData(to: URL(string: "https://example.com/x")!) }
        #expect(remote.map { if case .outputStreamURLInvalid = $0 { true } else { false } } == true)
    }

    @Test("MIME types from extensions", arguments: [("json", "application/json"), ("JPG", "image/jpeg"), ("weird", "application/octet-stream")])
    func mimeTypes(ext: String, expected: String) {
        #expect(MultipartFormData.mimeType(forPathExtension: ext) == expected)
    }
}
