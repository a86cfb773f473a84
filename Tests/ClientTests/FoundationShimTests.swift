#if FullFoundation
import Foundation
#else
import FoundationEssentials
#endif
import Testing
@testable import Client

private struct TransportFailure: Error, Equatable { let detail: String }

@Suite("URLError and Foundation stand-ins")
struct FoundationShimTests {
    @Test("URLError.lariat round-trips the underlying error and failing URL")
    func underlyingRoundTrip() throws {
        let url = URL(string: "https://127.0.0.1/x")!
        let error: any Error = URLError.lariat(.networkConnectionLost, underlying: TransportFailure(detail: "reset"), url: url)
        let urlError = try #require(error as? URLError)
        #expect(urlError.code == .networkConnectionLost)
        #expect(urlError.errorCode == -1005)
        #expect(urlError.failingURL == url)
        #expect(urlError.underlyingError as? TransportFailure == TransportFailure(detail: "reset"))
        let nested = AFError.sessionTaskFailed(error: urlError)
        #expect((nested.underlyingError as? URLError)?.underlyingError as? TransportFailure == TransportFailure(detail: "reset"))
    }

    @Test("request IDs are random version-4 UUIDs: version and variant bits set, 1,000 distinct")
    func randomUUIDs() {
        var seen = Set<UUID>()
        for _ in 0..<1_000 {
            let id = UUID.randomV4()
            #expect(id.uuid.6 >> 4 == 4)
            #expect(id.uuid.8 >> 6 == 0b10)
            #expect(id.uuidString.count == 36)
            seen.insert(id)
        }
        #expect(seen.count == 1_000)
    }

    @Test("URLError.lariat without a URL records none")
    func noURL() {
        let error = URLError.lariat(.timedOut, underlying: TransportFailure(detail: "t"), url: nil)
        #expect(error.failingURL == nil)
        #expect(error.underlyingError is TransportFailure)
    }

    @Test("catch URLError.code pattern works")
    func catchPattern() {
        do {
            throw URLError.lariat(.cancelled, underlying: TransportFailure(detail: ""), url: nil)
        } catch URLError.cancelled {
            return
        } catch {
            Issue.record("pattern did not match \(error)")
        }
    }

    @Test("URLError codes have Apple's raw values", arguments: [
        (URLError.Code.cancelled, -999), (.badURL, -1000), (.timedOut, -1001), (.unsupportedURL, -1002),
        (.cannotFindHost, -1003), (.cannotConnectToHost, -1004), (.networkConnectionLost, -1005),
        (.dnsLookupFailed, -1006), (.httpTooManyRedirects, -1007), (.resourceUnavailable, -1008),
        (.notConnectedToInternet, -1009), (.badServerResponse, -1011), (.userCancelledAuthentication, -1012),
        (.userAuthenticationRequired, -1013), (.zeroByteResource, -1014), (.cannotDecodeRawData, -1015),
        (.cannotDecodeContentData, -1016), (.cannotParseResponse, -1017), (.fileDoesNotExist, -1100),
        (.secureConnectionFailed, -1200), (.serverCertificateHasBadDate, -1201), (.serverCertificateUntrusted, -1202),
        (.serverCertificateHasUnknownRoot, -1203), (.serverCertificateNotYetValid, -1204),
        (.clientCertificateRejected, -1205), (.clientCertificateRequired, -1206), (.cannotLoadFromNetwork, -2000),
    ])
    func codes(code: URLError.Code, raw: Int) {
        #expect(code.rawValue == raw)
        #expect(URLError(code).errorCode == raw)
    }

    @Test("InputStream reads data in chunks, then reports the end")
    func streamData() {
        let stream = InputStream(data: Data([1, 2, 3, 4, 5]))
        #expect(stream.streamStatus == .notOpen)
        stream.open()
        #expect(stream.streamStatus == .open)
        #expect(stream.hasBytesAvailable)
        var buffer = [UInt8](repeating: 0, count: 2)
        var collected: [UInt8] = []
        while true {
            let count = stream.read(&buffer, maxLength: buffer.count)
            if count <= 0 { break }
            collected += buffer[..<count]
        }
        #expect(collected == [1, 2, 3, 4, 5])
        #expect(!stream.hasBytesAvailable)
        #expect(stream.streamStatus == .atEnd)
        stream.close()
        #expect(stream.streamStatus == .closed)
    }

    @Test("InputStream reads a file, by path and by URL")
    func streamFile() throws {
        let url = URL(fileURLWithPath: "/tmp/lariat-stream-\(UInt64.random(in: 0...UInt64.max))")
        let bytes = (0..<10_000).map { UInt8(truncatingIfNeeded: $0) }
        try Data(bytes).write(to: url)
        defer { try? FileManager.default.removeItem(at: url) }
        for stream in [InputStream(fileAtPath: url.path), InputStream(url: url)] {
            let stream = try #require(stream)
            stream.open()
            var buffer = [UInt8](repeating: 0, count: 4096)
            var collected: [UInt8] = []
            while case let count = stream.read(&buffer, maxLength: buffer.count), count > 0 {
                collected += buffer[..<count]
            }
            #expect(collected == bytes)
            #expect(stream.streamStatus == .atEnd)
            stream.close()
        }
    }

    @Test("InputStream on a missing file fails at open with an error")
    func streamMissingFile() throws {
        let stream = try #require(InputStream(fileAtPath: "/nonexistent/lariat"))
        stream.open()
        #expect(stream.streamStatus == .error)
        #expect(stream.streamError != nil)
        var byte: UInt8 = 0
        #expect(stream.read(&byte, maxLength: 1) == -1)
    }

    @Test("reading an unopened stream fails")
    func streamNotOpen() {
        let stream = InputStream(data: Data([1]))
        var byte: UInt8 = 0
        #expect(stream.read(&byte, maxLength: 1) == -1)
    }

    @Test("Progress counts and fraction")
    func progress() {
        let progress = Progress(totalUnitCount: 200)
        #expect(progress.fractionCompleted == 0)
        #expect(!progress.isFinished)
        progress.completedUnitCount = 50
        #expect(progress.fractionCompleted == 0.25)
        progress.completedUnitCount = 200
        #expect(progress.fractionCompleted == 1)
        #expect(progress.isFinished)
    }

    @Test("Progress is safe to update from many tasks")
    func progressConcurrent() async {
        let progress = Progress(totalUnitCount: 1000)
        await withTaskGroup(of: Void.self) { group in
            for _ in 0..<8 {
                group.addTask {
                    for _ in 0..<125 {
                        progress.totalUnitCount = 1000
                        _ = progress.fractionCompleted
                    }
                }
            }
        }
        progress.completedUnitCount = 1000
        #expect(progress.isFinished)
    }

    @Test("afURLQueryAllowed keeps unreserved plus / and ?", arguments: Array(0..<128))
    func afURLQueryAllowed(value: Int) {
        let scalar = Unicode.Scalar(UInt8(value))
        let unreserved = (0x41...0x5A).contains(value) || (0x61...0x7A).contains(value) || (0x30...0x39).contains(value)
            || "-._~/?".unicodeScalars.contains(scalar)
        #expect(CharacterSet.afURLQueryAllowed.contains(scalar) == unreserved)
    }

    @Test("percent encoder escapes everything outside the set as upper-case UTF-8")
    func percentEncoder() {
        let encoder = PercentEncoder(allowing: CharacterSet(charactersIn: "ab"))
        #expect(encoder.encode("abc é") == "ab%63%20%C3%A9")
        #expect(PercentEncoder(allowing: CharacterSet(charactersIn: "a"), spaceReplacement: "+").encode("a a") == "a+a")
    }

    #if !FullFoundation
    @Test("own CharacterSet algebra")
    func characterSet() {
        var set = CharacterSet(charactersIn: "abc")
        set.insert(charactersIn: "d")
        set.remove(charactersIn: "a")
        #expect(!set.contains("a") && set.contains("d"))
        #expect(set.union(CharacterSet(charactersIn: "z")).contains("z"))
        #expect(!set.subtracting(CharacterSet(charactersIn: "b")).contains("b"))
        #expect(set.inverted.contains("a"))
        #expect(CharacterSet.uppercaseLetters.contains("É") && !CharacterSet.uppercaseLetters.contains("e"))
        #expect(CharacterSet.whitespacesAndNewlines.contains("\n") && CharacterSet.whitespaces.contains(" "))
        #expect(CharacterSet(charactersIn: "0"..."9").contains("5"))
    }

    @Test("localizedDescription uses errorDescription")
    func localizedDescription() {
        #expect(AFError.explicitlyCancelled.localizedDescription == AFError.explicitlyCancelled.errorDescription)
        #expect(TransportFailure(detail: "x").localizedDescription.contains("TransportFailure"))
    }
    #endif
}
