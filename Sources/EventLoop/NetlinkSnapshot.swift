// NetlinkSnapshot: a one-off, blocking path check for callers that ask without listening
// (`NetworkReachabilityManager.status` before `startListening`). Same parser and state machine
// as the monitor, on a private blocking socket with a receive timeout, no loop involved.
internal import CLinux
internal import Glibc

/// A blocking, one-off run of ``PathMonitorStateMachine`` over a private netlink socket.
package enum NetlinkSnapshot {
    /// Dumps links, addresses and routes and returns the path status.
    ///
    /// Runs on the calling thread and blocks for at most about `timeoutMilliseconds` per recv.
    /// - Parameters:
    ///   - timeoutMilliseconds: `SO_RCVTIMEO` for each receive.
    ///   - isWireless: Answers the machine's wireless probes (the driver reads /sys).
    /// - Returns: The status, or nil if netlink is unavailable, times out or fails.
    package static func pathStatus(timeoutMilliseconds: Int = 2000, isWireless: (Int32, String) -> Bool) -> PathStatus? {
        let type = Int32(SOCK_RAW.rawValue) | Int32(SOCK_CLOEXEC.rawValue)
        let fd = Glibc.socket(AF_NETLINK, type, 0)
        guard fd >= 0 else { return nil }
        defer { closeDescriptor(fd) }
        var timeout = timeval(tv_sec: timeoutMilliseconds / 1000, tv_usec: (timeoutMilliseconds % 1000) * 1000)
        _ = setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
        var machine = PathMonitorStateMachine()
        var pending = machine.start()
        let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: NetlinkRouteSocket.receiveSize, alignment: 8)
        defer { buffer.deallocate() }
        while true {
            while !pending.isEmpty {
                let action = pending.removeFirst()
                switch action {
                case .sendDump(let type, let sequence):
                    let request = Netlink.dumpRequest(type: type, sequence: sequence)
                    let sent = request.withUnsafeBytes { Glibc.send(fd, $0.baseAddress, $0.count, 0) }
                    guard sent == request.count else { return nil }
                case .checkWireless(let index, let name):
                    pending += machine.wirelessChecked(index: index, isWireless: isWireless(index, name))
                case .publish(let status):
                    return status
                case .fail:
                    return nil
                }
            }
            var received = recv(fd, buffer.baseAddress, buffer.count, 0)
            while received < 0 && errno == EINTR { received = recv(fd, buffer.baseAddress, buffer.count, 0) }
            guard received > 0 else { return nil }
            guard let messages = try? NetlinkParser.parse(UnsafeRawBufferPointer(rebasing: buffer[0..<received])) else { return nil }
            pending += machine.received(messages)
        }
    }
}
