// libFuzzer target: `URLEncodedFormEncoder` on a `[String: String]` from the input (0xFF
// separates keys and values, up to eight pairs).
//
// Oracles: never traps; the output holds only unreserved characters, `%XX`, `=`, `&` and the
// `?` and `/` that `.afURLQueryAllowed` keeps; splitting it on `&` and `=` and percent-decoding
// gives back exactly the input pairs; the `name=value` segments are in ascending order as text.
// That is Alamofire's order (alphabetizeKeyValuePairs sorts the serialized segments, not the
// keys): `101=` sorts before `=x` ('1' < '='), so an empty key can follow "101", and "a-=" comes
// before "a=" (FailCases/form-empty-key-sorts-after-digits, a violation of the key-order oracle
// this replaced).
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
        let segments = text.isEmpty ? [] : text.split(separator: "&", omittingEmptySubsequences: false)
        require(segments.elementsEqual(segments.sorted()), "segments not in ascending order in \(text.debugDescription)")
        let decoded: [(String, String)] = segments.map { pair in
            let parts = pair.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
            require(parts.count == 2, "pair without = in \(text.debugDescription)")
            return (decode(parts[0]), decode(parts[1]))
        }
        // The same pairs, each once (keys are unique, so sorting both by key compares them as sets).
        let expected = pairs.sorted { $0.key < $1.key }.map { ($0.key, $0.value) }
        let got = decoded.sorted { $0.0 < $1.0 }
        require(got.elementsEqual(expected, by: ==), "decoded \(decoded), expected \(expected) in some order, from \(text.debugDescription)")
    }

    static func decode(_ text: Substring) -> String {
        guard let bytes = percentDecodedBytes(text) else { fatalError("oracle violated: bad escape in \(text.debugDescription)") }
        return String(decoding: bytes, as: UTF8.self)
    }
}
