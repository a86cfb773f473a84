// A PKCS#12 file's own key-derivation iteration counts are capped before PKCS12_parse runs them
// (PKCS12Bundle+Limits.swift): files made by `openssl pkcs12 -export` with its options. Before the
// cap, the 700,000-iteration rows loaded (slowly): nothing refused a count, whatever its size.
import Testing
@testable import TLS

@Suite struct PKCS12LimitsTests {
    /// (`openssl pkcs12 -export` options, the part of the refusal's message, or nil when it loads).
    static let rows: [([String], String?)] = [
        ([], nil),                                            // OpenSSL's 2,048 everywhere
        (["-iter", "500000"], nil),                           // 3 x 500,000: each under 600,000, 1.5 M in all
        (["-iter", "700000"], "MAC asks for 700000"),         // the MAC is read first
        (["-iter", "700000", "-nomaciter"], "encrypted content asks for 700000"),
        (["-iter", "700000", "-nomaciter", "-certpbe", "NONE"], "shrouded key asks for 700000"),
    ]

    @Test("iteration counts: each derivation at most 600,000", arguments: 0..<5)
    func limits(_ index: Int) throws {
        let (options, refusal) = Self.rows[index]
        let minter = PKI.Minter(directory: PKI.shared.directory)
        let path = try minter.pkcs12("client", chain: "clientCA", password: PKI.pkcs12Password, options: options)
        if let refusal {
            let error = #expect(throws: TLSError.self) { try PKCS12Bundle.load(file: path, password: PKI.pkcs12Password) }
            #expect(error?.kind == .decoding)
            #expect("\(error.map { "\($0)" } ?? "")".contains(refusal), "\(String(describing: error))")
        } else {
            let bundle = try PKCS12Bundle.load(file: path, password: PKI.pkcs12Password)
            #expect(bundle.caCertificates.count == 1)
        }
    }
}
