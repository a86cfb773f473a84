// Where bytes go: files (with `--create-dirs`), standard output, write errors noticed.
import Client  // firstOccurrence(of:): substring search without the regex engine
import FoundationEssentials
#if canImport(Glibc)
import Glibc
#endif
import Transport

/// File and descriptor helpers for a transfer's output.
enum Output {
    /// Writes `data` to a new file at `path`; false on any error (including at close).
    /// `append` (`-C`) adds to the file instead of replacing it; `limitRate` paces the writes.
    static func writeFile(_ path: String, _ data: Data, createDirectories: Bool, limitRate: Int? = nil, append: Bool = false) -> Bool {
        guard let fd = openFile(path, createDirectories: createDirectories, append: append) else { return false }
        let written = write(fd, data, limitRate: limitRate)
        return close(fd) == 0 && written
    }

    /// Creates (or truncates, or with `append` opens for appending) the file at `path` for
    /// writing; `nil` on an error. For a name the user gave (`-o`, `-O`'s URL name, `-D`, `-c`).
    static func openFile(_ path: String, createDirectories: Bool, append: Bool = false) -> Int32? {
        if case .success(let opened) = open(path, rule: FileRule(createDirectories: createDirectories, append: append)) { return opened.fd }
        return nil
    }

    /// How a body's output file may be opened (curl 7.88's `tool_create_output_file` rules).
    struct FileRule: Equatable {
        /// `--create-dirs`.
        var createDirectories = false
        /// `-C`: append to the existing file instead of truncating it.
        var append = false
        /// The name came from the server (`-J`'s Content-Disposition): the file must be new
        /// (`O_EXCL`) and a symbolic link there is never followed (`O_NOFOLLOW`; `O_EXCL`
        /// refuses an existing link too, dangling or not).
        var serverNamed = false
        /// `--no-clobber`: never replace a file; `NAME.1` … `NAME.100` are tried in turn.
        var noClobber = false
        /// `--create-file-mode`: the permission bits of a created file (umask applies).
        var mode: UInt32 = 0o644
    }

    /// Why a file could not be opened.
    struct OpenError: Error, Equatable {
        /// The `errno` of `open(2)`.
        var errno: Int32
        /// `strerror`'s text, as curl prints it ("File exists").
        var reason: String { String(cString: strerror(errno)) }
    }

    /// An opened output file.
    struct OpenedFile: Equatable {
        /// The descriptor.
        var fd: Int32
        /// The name actually used (`--no-clobber` may have added `.N`).
        var path: String
    }

    /// Opens the output file at `path` under `rule`; on failure the `errno` of the last attempt.
    static func open(_ path: String, rule: FileRule) -> Result<OpenedFile, OpenError> {
        if rule.createDirectories { makeParents(of: path) }
        var flags = O_WRONLY | O_CREAT | O_CLOEXEC | (rule.append ? O_APPEND : O_TRUNC)
        if rule.serverNamed { flags |= O_EXCL | O_NOFOLLOW }
        guard rule.noClobber && !rule.append else {
            let fd = Glibc.open(path, flags, mode_t(rule.mode))
            return fd >= 0 ? .success(OpenedFile(fd: fd, path: path)) : .failure(OpenError(errno: errno))
        }
        // curl: the name, then NAME.1 to NAME.100, each created exclusively (so a link is never followed).
        flags |= O_EXCL | O_NOFOLLOW
        var lastError = OpenError(errno: EEXIST)
        for suffix in 0...100 {
            let candidate = suffix == 0 ? path : "\(path).\(suffix)"
            let fd = Glibc.open(candidate, flags, mode_t(rule.mode))
            if fd >= 0 { return .success(OpenedFile(fd: fd, path: candidate)) }
            lastError = OpenError(errno: errno)
            guard lastError.errno == EEXIST else { break }
        }
        return .failure(lastError)
    }

    /// Writes every byte, at most `limitRate` bytes a second when given; false on an error.
    static func write(_ fd: Int32, _ data: Data, limitRate: Int?) -> Bool {
        guard let limitRate, limitRate > 0 else { return writeAll(fd, data) }
        let chunk = max(1, min(limitRate, 16 * 1024))
        var offset = 0
        let start = monotonicSeconds()
        while offset < data.count {
            let end = min(offset + chunk, data.count)
            guard writeAll(fd, data[data.startIndex + offset ..< data.startIndex + end]) else { return false }
            offset = end
            // Sleep until the bytes written so far are on schedule.
            let due = Double(offset) / Double(limitRate) - (monotonicSeconds() - start)
            if due > 0 { usleep(UInt32(due * 1_000_000)) }
        }
        return true
    }

    /// The standard reason phrase for `status` (Client does not keep the server's).
    static func reasonPhrase(_ status: Int) -> String {
        let phrases = [200: "OK", 201: "CREATED", 202: "ACCEPTED", 204: "NO CONTENT", 206: "PARTIAL CONTENT", 301: "MOVED PERMANENTLY",
                       302: "FOUND", 303: "SEE OTHER", 304: "NOT MODIFIED", 307: "TEMPORARY REDIRECT", 308: "PERMANENT REDIRECT",
                       400: "BAD REQUEST", 401: "UNAUTHORIZED", 403: "FORBIDDEN", 404: "NOT FOUND", 405: "METHOD NOT ALLOWED",
                       408: "REQUEST TIMEOUT", 409: "CONFLICT", 410: "GONE", 413: "PAYLOAD TOO LARGE", 418: "I'M A TEAPOT",
                       429: "TOO MANY REQUESTS", 500: "INTERNAL SERVER ERROR", 502: "BAD GATEWAY", 503: "SERVICE UNAVAILABLE",
                       504: "GATEWAY TIMEOUT"]
        return phrases[status] ?? ""
    }

    /// `-O`: the URL path's last segment, or nil when it is empty.
    static func remoteName(_ url: String) -> String? {
        var rest = Substring(url)
        if let scheme = rest.firstOccurrence(of: "://") { rest = rest[scheme.upperBound...] }
        guard let slash = rest.firstIndex(of: "/") else { return nil }
        let path = rest[slash...].prefix(while: { $0 != "?" && $0 != "#" })
        let name = path.split(separator: "/", omittingEmptySubsequences: false).last ?? ""
        return name.isEmpty ? nil : String(name)
    }

    /// `--remove-on-error`: removes the output file of a failed transfer, as curl 7.88 does
    /// (only a regular file; with `-v` a note says so).
    static func removePartial(_ path: String, verbose: Bool) {
        var info = stat()
        guard lstat(path, &info) == 0, (info.st_mode & S_IFMT) == S_IFREG else {
            printError("Warning: Skipping removal; not a regular file: \(path)")
            return
        }
        if unlink(path) == 0 {
            if verbose { printError("Note: Removed output file: \(path)") }
        } else {
            printError("Warning: Failed removing: \(path)")
        }
    }

    /// Creates the missing directories above `path`.
    private static func makeParents(of path: String) {
        let parts = path.split(separator: "/", omittingEmptySubsequences: false).dropLast()
        var prefix = ""
        for (index, part) in parts.enumerated() {
            prefix += index == 0 ? String(part) : "/" + part
            if !prefix.isEmpty { mkdir(prefix, 0o755) }
        }
    }

    /// Seconds on the monotonic clock.
    static func monotonicSeconds() -> Double {
        var now = timespec()
        clock_gettime(CLOCK_MONOTONIC, &now)
        return Double(now.tv_sec) + Double(now.tv_nsec) / 1e9
    }
}

/// Writes every byte of `data` to `fd`; false on an error (ENOSPC on /dev/full, EPIPE…).
func writeAll<Bytes: DataProtocol>(_ fd: Int32, _ data: Bytes) -> Bool {
    var failed = false
    for region in data.regions where !failed {
        region.withUnsafeBytes { raw in
            var offset = 0
            while offset < raw.count {
                let n = Glibc.write(fd, raw.baseAddress! + offset, raw.count - offset)
                if n < 0 && errno == EINTR { continue }
                if n <= 0 { failed = true; return }
                offset += n
            }
        }
    }
    return !failed
}

/// `-J`: the file name a Content-Disposition field names, as curl 7.88 takes it.
enum RemoteHeaderName {
    /// The `filename=` parameter (quoted or not), reduced to what follows its last `/` or `\`
    /// (curl never lets the server choose a directory); `nil` when absent or empty, and then
    /// `-O`'s URL name is used.
    static func fileName(fromContentDisposition value: String?) -> String? {
        guard let value else { return nil }
        // The parameter name, case-insensitively, not inside another name ("xfilename=").
        var searchFrom = value.startIndex
        var found: String.Index?
        let lowered = value.lowercased()
        while let range = lowered[searchFrom...].firstOccurrence(of: "filename=") {
            let before = range.lowerBound == lowered.startIndex ? nil : lowered[lowered.index(before: range.lowerBound)]
            if before == nil || before == ";" || before == " " || before == "\t" {
                found = range.upperBound
                break
            }
            searchFrom = range.upperBound
        }
        guard let start = found else { return nil }
        var rest = value[start...]
        var name: Substring
        if rest.first == "\"" {
            rest = rest.dropFirst()
            name = rest.prefix { $0 != "\"" }
        } else {
            name = rest.prefix { $0 != ";" && $0 != " " && $0 != "\t" && $0 != "\r" && $0 != "\n" }
        }
        if let separator = name.lastIndex(where: { $0 == "/" || $0 == "\\" }) { name = name[name.index(after: separator)...] }
        guard !name.isEmpty, name != ".", name != ".." else { return nil }
        return String(name)
    }
}
