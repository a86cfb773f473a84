// What issue 21's options do once a transfer ended: --etag-save writes the response's ETag,
// -R/--remote-time gives the output file the response's Last-Modified time. (--xattr waits:
// Glibc's overlay does not expose setxattr, and fetch's C shims sit in build settings another
// change owns this session.)
import Client
import FoundationEssentials
#if canImport(Glibc)
import Glibc
#endif

/// After-transfer effects of ``FetchExtras``.
enum OutputExtras {
    /// Applies the options to `transfer`'s results.
    static func finished(_ transfer: Transfer, status: Int32) {
        let extras = transfer.options.extras
        let response = transfer.response
        if let path = extras.etagSave, let response {
            // curl 7.88: the ETag and a newline, or an empty file when there is none.
            let etag = response.headers.value(for: "ETag").map { $0 + "\n" } ?? ""
            _ = Output.writeFile(path, Data(etag.utf8), createDirectories: false)
        }
        guard let path = transfer.openedPath, let response else { return }
        if extras.remoteTime, let modified = response.headers.value(for: "Last-Modified"), let time = HTTPDate.parse(modified) {
            var times = [timespec(tv_sec: time, tv_nsec: 0), timespec(tv_sec: time, tv_nsec: 0)]
            _ = utimensat(AT_FDCWD, path, &times, 0)
        }
    }
}
