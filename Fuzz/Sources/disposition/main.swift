// libFuzzer target: the `Content-Disposition` value a server sends, read by
// `HTTPURLResponse.suggestedFilename` (which `DownloadRequest.suggestedDownloadDestination` uses).
//
// Oracles: never traps; the name is non-empty, holds no path separator, and is not `.` or `..`,
// so appending it to a folder cannot leave the folder.
@testable import Client
import ClientFuzzHarness
import Foundation

@main
enum DispositionFuzzer {
    static func main() {
        ClientFuzzEntry.run { data, count in
            DispositionFuzzer.one(data, count)
            return 0
        }
    }

    /// Checks one input.
    static func one(_ data: UnsafePointer<UInt8>?, _ count: Int) {
        let value = String(decoding: inputBytes(data, count), as: UTF8.self)
        _ = HeaderValueParameters.split(value)
        let response = HTTPURLResponse(
            url: URL(string: "http://example.com/files/")!, statusCode: 200,
            headers: HTTPHeaders([HTTPHeader(name: "Content-Disposition", value: value)])
        )
        let name = response.suggestedFilename ?? ""
        require(!name.isEmpty, "no file name for \(value.debugDescription)")
        require(!name.contains("/") && !name.contains("\\"), "separator in \(name.debugDescription) from \(value.debugDescription)")
        require(name != "." && name != "..", "\(name.debugDescription) from \(value.debugDescription)")
    }
}
