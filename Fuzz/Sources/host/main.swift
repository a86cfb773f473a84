// libFuzzer target: host validation (`HostName.wireForm`), Punycode and the URL → host path a
// user's URL string takes before a connection is opened.
//
// Oracles: never traps; only `HostName.Rejection` escapes (typed throws); an accepted host is
// ASCII, non-empty and already in wire form (validating it again gives it back); Punycode
// encoding round-trips through decoding.
@testable import Client
import ClientFuzzHarness
import Foundation

@main
enum HostFuzzer {
    static func main() {
        ClientFuzzEntry.run { data, count in
            HostFuzzer.one(data, count)
            return 0
        }
    }

    /// Checks one input.
    static func one(_ data: UnsafePointer<UInt8>?, _ count: Int) {
        let text = String(decoding: inputBytes(data, count), as: UTF8.self)
        check(host: text)
        let scalars = Array(text.unicodeScalars)
        if let encoded = Punycode.encode(scalars) {
            require(encoded.utf8.allSatisfy { $0 < 0x80 }, "Punycode output not ASCII: \(encoded.debugDescription)")
            require(Punycode.decode(encoded) == scalars, "Punycode round trip of \(text.debugDescription) via \(encoded)")
        }
        _ = Punycode.decode(text)
        if let url = URL(string: "http://\(text)/"), let host = url.host { check(host: host) }
    }

    static func check(host: String) {
        let wire: String
        do throws(HostName.Rejection) {
            wire = try HostName.wireForm(of: host)
        } catch {
            return
        }
        require(!wire.isEmpty && wire.utf8.allSatisfy { $0 > 0x20 && $0 < 0x7F }, "wire form \(wire.debugDescription) of \(host.debugDescription)")
        let again = Result { () throws(HostName.Rejection) in try HostName.wireForm(of: wire) }
        require(again == .success(wire), "wire form of \(wire.debugDescription) is \(again), from \(host.debugDescription)")
    }
}
