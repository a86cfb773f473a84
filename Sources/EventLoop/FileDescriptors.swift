// Leak checks: how many descriptors this process holds right now.
internal import Glibc

/// The number of open file descriptors in this process (entries of `/proc/self/fd`, not
/// counting the one used to list them), or -1 if `/proc` is unavailable.
///
/// For leak tests across this package: take a count, run a scenario, let sockets close, compare.
/// - Returns: The count at the moment of the call.
package func openFileDescriptorCount() -> Int {
    guard let directory = opendir("/proc/self/fd") else { return -1 }
    defer { closedir(directory) }
    var count = 0
    while let entry = readdir(directory) {
        let isDot = withUnsafeBytes(of: entry.pointee.d_name) { name in
            name[0] == UInt8(ascii: ".") && (name[1] == 0 || (name[1] == UInt8(ascii: ".") && name[2] == 0))
        }
        if !isDot { count += 1 }
    }
    return count - 1  // the directory stream's own descriptor
}
