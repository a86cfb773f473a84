// Which `fetch` executable the integration suites run.
import Glibc

/// The `fetch` executable the suites run: the path in `LARIAT_FETCH_BINARY` when it is set (CI
/// points it at the static container build, so fetch's suites also run against the binary that
/// ships in the image), else the `fetch` built next to the test bundle; `nil` when there is none.
///
/// A `LARIAT_FETCH_BINARY` that names no executable file stops the run: skipping every fetch
/// suite would pass a run that tested nothing.
package let fetchExecutablePath: String? = {
    if let chosen = getenv("LARIAT_FETCH_BINARY"), chosen.pointee != 0 {
        let path = String(cString: chosen)
        guard access(path, X_OK) == 0 else { fatalError("LARIAT_FETCH_BINARY=\(path) is not an executable file") }
        return path
    }
    var buffer = [CChar](repeating: 0, count: Int(PATH_MAX) + 1)
    let count = readlink("/proc/self/exe", &buffer, buffer.count - 1)
    guard count > 0 else { return nil }
    let executable = String(decoding: buffer[..<count].map { UInt8(bitPattern: $0) }, as: UTF8.self)
    guard let slash = executable.lastIndex(of: "/") else { return nil }
    let candidate = String(executable[...slash]) + "fetch"
    return access(candidate, X_OK) == 0 ? candidate : nil
}()
