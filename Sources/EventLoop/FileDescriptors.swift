// Leak checks: how many descriptors this process holds right now.
internal import CDirent
internal import Glibc

/// The number of open file descriptors in this process (entries of `/proc/self/fd`, not
/// counting the one used to list them), or -1 if `/proc` is unavailable.
///
/// For leak tests across this package: take a count, run a scenario, let sockets close, compare.
/// - Returns: The count at the moment of the call.
package func openFileDescriptorCount() -> Int {
    guard let names = directoryEntryNames(in: "/proc/self/fd") else { return -1 }
    return names.count - 1  // the directory stream's own descriptor
}

/// The names in a directory, without `.` and `..`, in `readdir` order, or nil if it cannot be
/// opened. Each name is read through `lariat_dirent_name` (CDirent): in place, up to its NUL.
///
/// - Parameter path: The directory, such as `/proc/self/fd`.
/// - Returns: The entry names.
package func directoryEntryNames(in path: String) -> [String]? {
    guard let directory = opendir(path) else { return nil }
    defer { closedir(directory) }
    var names: [String] = []
    while let entry = readdir(directory) {
        let name = String(cString: lariat_dirent_name(entry))
        if name != "." && name != ".." { names.append(name) }
    }
    return names
}
