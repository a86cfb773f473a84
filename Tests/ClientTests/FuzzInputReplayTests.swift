import Foundation
import Testing
@testable import Client
@testable import Transport

// Replays the Client fuzz targets' files (Fuzz/corpus/<target>/ and Fuzz/FailCases/<target>-*)
// with the targets' oracles, so a crasher found by a campaign stays fixed without a fuzzer
// (the pattern of Tests/WireTests/FuzzReplayTests.swift). Layouts: Fuzz/Sources/<target>/main.swift.

/// The files of one fuzz target, as (name, bytes).
private func fuzzInputs(_ target: String) -> [(name: String, bytes: [UInt8])] {
    let fuzz = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("Fuzz")
    var files: [(String, [UInt8])] = []
    let corpus = fuzz.appendingPathComponent("corpus/\(target)")
    for name in (try? FileManager.default.contentsOfDirectory(atPath: corpus.path)) ?? [] where !name.hasPrefix(".") {
        if let data = FileManager.default.contents(atPath: corpus.appendingPathComponent(name).path) { files.append(("corpus/\(target)/\(name)", [UInt8](data))) }
    }
    let failCases = fuzz.appendingPathComponent("FailCases")
    for name in (try? FileManager.default.contentsOfDirectory(atPath: failCases.path)) ?? [] where name.hasPrefix("\(target)-") {
        if let data = FileManager.default.contents(atPath: failCases.appendingPathComponent(name).path) { files.append(("FailCases/\(name)", [UInt8](data))) }
    }
    return files.sorted { $0.0 < $1.0 }
}

@Suite("Fuzz input replay (Client)")
struct FuzzInputReplayTests {
    @Test("every Client target has seeds")
    func seedsFound() {
        for target in ["host", "disposition", "multipart", "form"] {
            #expect(!fuzzInputs(target).isEmpty, "no files for \(target)")
        }
    }

    @Test("host: an accepted host is ASCII and already in wire form; Punycode round-trips")
    func host() {
        for (name, bytes) in fuzzInputs("host") {
            let text = String(decoding: bytes, as: UTF8.self)
            var hosts = [text]
            if let host = URL(string: "http://\(text)/")?.host { hosts.append(host) }
            for host in hosts {
                guard let wire = try? HostName.wireForm(of: host) else { continue }
                #expect(!wire.isEmpty && wire.utf8.allSatisfy { $0 > 0x20 && $0 < 0x7F }, "\(name): \(wire.debugDescription)")
                #expect((try? HostName.wireForm(of: wire)) == wire, "\(name): \(wire.debugDescription) is not stable")
            }
            let scalars = Array(text.unicodeScalars)
            if let encoded = Punycode.encode(scalars) { #expect(Punycode.decode(encoded) == scalars, "\(name)") }
        }
    }

    @Test("disposition: the suggested name cannot leave the folder")
    func disposition() {
        for (name, bytes) in fuzzInputs("disposition") {
            let response = HTTPURLResponse(
                url: URL(string: "http://example.com/files/")!, statusCode: 200,
                headers: HTTPHeaders([HTTPHeader(name: "Content-Disposition", value: String(decoding: bytes, as: UTF8.self))])
            )
            let file = response.suggestedFilename ?? ""
            #expect(!file.isEmpty && !file.contains("/") && !file.contains("\\") && file != "." && file != "..", "\(name): \(file.debugDescription)")
        }
    }

    @Test("multipart: one delimiter per part plus the closing one")
    func multipart() throws {
        let boundary = "fuzz.boundary.0123456789abcdef"
        for (name, bytes) in fuzzInputs("multipart") where !bytes.isEmpty {
            let pieces = bytes.split(separator: 0xFF, maxSplits: 11, omittingEmptySubsequences: false).map { String(decoding: $0, as: UTF8.self) }
            let form = MultipartFormData(boundary: boundary)
            var headerLines: [Int] = []
            for index in stride(from: 0, to: pieces.count, by: 4) {
                let part = Array(pieces[index..<min(index + 4, pieces.count)])
                let content = Data((part.count > 3 ? part[3] : "").utf8)
                if part.count > 2 {
                    form.append(content, withName: part[0], fileName: part[1], mimeType: part[2])
                } else {
                    form.append(content, withName: part[0], fileName: part.count > 1 ? part[1] : nil)
                }
                headerLines.append(part.count > 2 ? 2 : 1)
            }
            let body = String(decoding: try form.encode(), as: UTF8.self)
            let segments = body.components(separatedBy: "--\(boundary)")
            #expect(segments.count - 1 == headerLines.count + 1, "\(name)")
            // A CR or LF in a name, file name or MIME type must not add a header line
            // (FailCases/multipart-crlf-in-mime-type).
            for (segment, lines) in zip(segments.dropFirst(), headerLines) {
                let section = segment.dropFirst(2).components(separatedBy: "\r\n\r\n")[0]
                #expect(section.utf8.split(separator: 10, omittingEmptySubsequences: false).count == lines, "\(name): \(section.debugDescription)")
            }
        }
    }

    /// Alamofire's `alphabetizeKeyValuePairs` sorts the serialized `name=value` segments as text,
    /// not the keys: the segments come out ascending and decode to the input pairs, in the order
    /// of their escaped text (Fuzz/FailCases/form-empty-key-sorts-after-digits: `101=` sorts before
    /// `=…`, so the empty key follows "101"; the key-order oracle this replaced was wrong).
    @Test("form: the output's segments are ascending and decode to exactly the pairs")
    func form() throws {
        for (name, bytes) in fuzzInputs("form") {
            let pieces = bytes.split(separator: 0xFF, maxSplits: 15, omittingEmptySubsequences: false).map { String(decoding: $0, as: UTF8.self) }
            var pairs: [String: String] = [:]
            for index in stride(from: 0, to: pieces.count - 1, by: 2) { pairs[pieces[index]] = pieces[index + 1] }
            let text: String = try URLEncodedFormEncoder().encode(pairs)
            let segments = text.isEmpty ? [] : text.split(separator: "&", omittingEmptySubsequences: false)
            #expect(segments == segments.sorted(), "\(name): \(text)")
            let decoded: [[String]] = segments.map { pair in
                let halves = pair.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
                return halves.map { String(decoding: percentDecodedBytes($0) ?? [], as: UTF8.self) }
            }
            #expect(decoded.sorted { $0[0] < $1[0] } == pairs.sorted { $0.key < $1.key }.map { [$0.key, $0.value] }, "\(name): \(text)")
        }
    }

    /// The finding's pairs, as Alamofire orders them: by the serialized segment (`1` < `=`), so
    /// the empty key comes second; its value's invalid UTF-8 became U+FFFD before encoding.
    @Test("form: an empty key sorts by its segment, after a key of digits")
    func emptyKeySortsBySegment() throws {
        let pairs = ["101": "", "": "\u{FFFD}\u{FFFD}?"]
        #expect(try URLEncodedFormEncoder().encode(pairs) as String == "101=&=%EF%BF%BD%EF%BF%BD?")
        #expect(try URLEncodedFormEncoder().encode(["a": "1", "a-": "2"]) as String == "a-=2&a=1")
    }
}

@Suite("X.509 fuzz findings (Client)")
struct X509FuzzFindingTests {
    /// Fuzz/FailCases/certificate-undecodable-public-key: a server can send a certificate whose
    /// key OpenSSL cannot decode (as an extra certificate next to a valid chain); reading the
    /// presented keys for pinning trapped. Like Apple's `SecCertificateCopyKey`, it has no key.
    @Test("a certificate without a decodable key has no SecKey; pinning skips it")
    func undecodablePublicKey() throws {
        let path = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
            .appendingPathComponent("Fuzz/FailCases/certificate-undecodable-public-key").path
        let data = try #require(FileManager.default.contents(atPath: path))
        let certificate = try #require(SecCertificateCreateWithData(nil, data as CFData))
        #expect(certificate.af.publicKey == nil)
        #expect([certificate].af.publicKeys.isEmpty)
    }
}
