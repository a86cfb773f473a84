// libFuzzer target: `URLEncodedFormEncoder` on a `[String: String]` from the input (0xFF
// separates keys and values, up to eight pairs).
//
// Oracles: never traps; the output holds only unreserved characters, `%XX`, `=`, `&` and the
// `?` and `/` that `.afURLQueryAllowed` keeps; splitting it on `&` and `=` and percent-decoding
// gives back exactly the input pairs, in key order.
@testable import Client
import ClientFuzzHarness
// percentDecodedBytes, Transport's (a module Client is built on, not a product of its own).
@testable import Transport
import Foundation

@main
enum FormFuzzer {
    static func main() {
        ClientFuzzEntry.run { data, count in
            FormFuzzer.one(data, count)
            return 0
        }
    }

    /// Checks one input.
    static func one(_ data: UnsafePointer<UInt8>?, _ count: Int) {
        let pieces = fields(inputBytes(data, count), limit: 16).map { String(decoding: $0, as: UTF8.self) }
        var pairs: [String: String] = [:]
        var index = 0
        while index + 1 < pieces.count {
            pairs[pieces[index]] = pieces[index + 1]
            index += 2
        }
        let text: String
        do { text = try URLEncodedFormEncoder().encode(pairs) } catch { fatalError("oracle violated: encode threw \(error)") }
        let allowed = Set("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-._~%=&?/".utf8)
        require(text.utf8.allSatisfy(allowed.contains), "unexpected character in \(text.debugDescription)")
        let decoded: [(String, String)] = text.isEmpty ? [] : text.split(separator: "&", omittingEmptySubsequences: false).map { pair in
            let parts = pair.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
            require(parts.count == 2, "pair without = in \(text.debugDescription)")
            return (decode(parts[0]), decode(parts[1]))
        }
        let expected = pairs.sorted { $0.key < $1.key }.map { ($0.key, $0.value) }
        require(decoded.elementsEqual(expected, by: ==), "decoded \(decoded), expected \(expected), from \(text.debugDescription)")
    }

    static func decode(_ text: Substring) -> String {
        guard let bytes = percentDecodedBytes(text) else { fatalError("oracle violated: bad escape in \(text.debugDescription)") }
        return String(decoding: bytes, as: UTF8.self)
    }
}
