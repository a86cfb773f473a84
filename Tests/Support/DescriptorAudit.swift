// DescriptorAudit: which of this process's descriptors are TCP sockets on a given port.
//
// A precise leak check that parallel tests cannot disturb: a plain descriptor count moves
// whenever another test opens a file, but only the code under test touches its own server's port.
import CDirent
import Glibc

/// The open socket descriptors whose local or peer port is `port` (IPv4 or IPv6).
///
/// - Parameter port: The port to look for, typically a test server's.
/// - Returns: The descriptor numbers, ascending.
public func openSocketDescriptors(touchingPort port: Int) -> [Int32] {
    guard let directory = opendir("/proc/self/fd") else { return [] }
    var numbers: [Int32] = []
    while let entry = readdir(directory) {
        let name = String(cString: lariat_dirent_name(entry))  // in place, up to the NUL
        if let number = Int32(name) { numbers.append(number) }
    }
    closedir(directory)
    return numbers.filter { fd in
        socketPort(fd, getsockname) == port || socketPort(fd, getpeername) == port
    }.sorted()
}

private func socketPort(
    _ fd: Int32,
    _ query: (Int32, UnsafeMutablePointer<sockaddr>, UnsafeMutablePointer<socklen_t>) -> Int32
) -> Int? {
    var storage = sockaddr_storage()
    var length = socklen_t(MemoryLayout<sockaddr_storage>.size)
    let result = withUnsafeMutablePointer(to: &storage) {
        $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { query(fd, $0, &length) }
    }
    guard result == 0 else { return nil }
    let family = Int32(storage.ss_family)
    guard family == AF_INET || family == AF_INET6 else { return nil }
    return withUnsafeBytes(of: &storage) { raw in
        Int(UInt16(bigEndian: raw.loadUnaligned(fromByteOffset: 2, as: UInt16.self)))
    }
}
