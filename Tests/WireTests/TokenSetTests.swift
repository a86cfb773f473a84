import Testing
@testable import Wire

@Suite("Token set")
struct TokenSetTests {
    @Test("the lookup table, the bitmasks and RFC 9110's tchar agree on all 256 bytes")
    func agree() {
        let tchar = Set("!#$%&'*+-.^_`|~0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz".utf8)
        #expect(TokenSet.table.utf8CodeUnitCount == 256)
        for byte in 0...255 {
            let b = UInt8(byte)
            let inTable = TokenSet.table.utf8Start[byte] == 0x31
            #expect(inTable == tchar.contains(b), "table, byte \(byte)")
            #expect(TokenSet.contains(b) == tchar.contains(b), "bitmask, byte \(byte)")
        }
    }
}
