// Rows of the pointer audit (Sources/TLS/README.md) in Client and fetch that no other test
// reached: a C string from libc read into a Swift value.
import Testing
@testable import fetch

@Suite("pointer audit: fetch")
struct PointerAuditTests {
    /// ProgressMeter.barWidth reads getenv("COLUMNS") (a `char *` into the environment) as a
    /// String. Values that do not count fall to the terminal's width or 79, never these.
    @Test("bar width from COLUMNS", arguments: [("120", 120), ("21", 21), ("300", 256), ("9999", 256)] as [(String, Int)])
    func barWidthFromColumns(_ variable: String, _ width: Int) {
        #expect(ProgressMeter.barWidth(columns: variable) == width)
    }
}
