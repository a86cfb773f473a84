// libFuzzer target: the multipart/form-data encoder with names, file names, MIME types and
// contents from the input (0xFF-separated, four per part, up to three parts).
//
// Oracles: never traps; the body is the parts' delimiter lines in order and nothing else can
// open a part: the delimiter occurs exactly once per part plus the closing one (the fixed
// boundary is longer than anything the fuzzer is likely to place in a part, and inputs that hold
// it are skipped); each part's header section is one `Content-Disposition` line and, with a MIME
// type, one `Content-Type` line: a CR or LF in a name cannot add a header. (Other control bytes,
// NUL included, pass through as the WHATWG encoding algorithm passes them: they cannot end a line.)
@testable import Client
import ClientFuzzHarness
import Foundation

@main
enum MultipartFuzzer {
    static let boundary = "fuzz.boundary.0123456789abcdef"

    static func main() {
        ClientFuzzEntry.run { data, count in
            MultipartFuzzer.one(data, count)
            return 0
        }
    }

    /// Checks one input.
    static func one(_ data: UnsafePointer<UInt8>?, _ count: Int) {
        let bytes = inputBytes(data, count)
        guard !bytes.isEmpty, !contains(bytes, Array(boundary.utf8)) else { return }
        let pieces = fields(bytes, limit: 12)
        let form = MultipartFormData(boundary: boundary)
        var headerLines: [Int] = []
        var index = 0
        while index < pieces.count {
            let part = Array(pieces[index..<min(index + 4, pieces.count)])
            let name = String(decoding: part[0], as: UTF8.self)
            let fileName = part.count > 1 ? String(decoding: part[1], as: UTF8.self) : nil
            let mimeType = part.count > 2 ? String(decoding: part[2], as: UTF8.self) : nil
            let content = part.count > 3 ? Data(part[3]) : Data()
            if let fileName, let mimeType {
                form.append(content, withName: name, fileName: fileName, mimeType: mimeType)
                headerLines.append(2)
            } else {
                form.append(content, withName: name, fileName: fileName)
                headerLines.append(1)
            }
            index += 4
        }
        let body: Data
        do { body = try form.encode() } catch { return }
        let encoded = [UInt8](body)
        let delimiter = Array("--\(boundary)".utf8)
        let starts = occurrences(of: delimiter, in: encoded)
        require(starts.count == headerLines.count + 1, "\(starts.count) delimiters for \(headerLines.count) parts")
        require(encoded.starts(with: delimiter + [13, 10]), "body does not open with the delimiter")
        require(encoded.suffix(delimiter.count + 4) == ArraySlice(delimiter + Array("--\r\n".utf8)), "body does not close")
        for (part, lines) in zip(starts, headerLines) {
            let head = encoded[(part + delimiter.count + 2)...]
            guard let blank = firstIndex(of: [13, 10, 13, 10], in: head) else { violation("part without a blank line") }
            let section = Array(encoded[head.startIndex..<blank])
            let count = section.split(separator: 10, omittingEmptySubsequences: false).count
            require(count == lines, "\(count) header lines, expected \(lines): \(String(decoding: section, as: UTF8.self).debugDescription)")
        }
    }

    static func violation(_ message: String) -> Never { fatalError("oracle violated: \(message)") }

    static func contains(_ bytes: [UInt8], _ needle: [UInt8]) -> Bool { !occurrences(of: needle, in: bytes).isEmpty }

    static func occurrences(of needle: [UInt8], in bytes: [UInt8]) -> [Int] {
        guard bytes.count >= needle.count else { return [] }
        return (0...(bytes.count - needle.count)).filter { bytes[$0..<($0 + needle.count)].elementsEqual(needle) }
    }

    static func firstIndex(of needle: [UInt8], in bytes: ArraySlice<UInt8>) -> Int? {
        guard bytes.count >= needle.count else { return nil }
        return (bytes.startIndex...(bytes.endIndex - needle.count)).first { bytes[$0..<($0 + needle.count)].elementsEqual(needle) }
    }
}
