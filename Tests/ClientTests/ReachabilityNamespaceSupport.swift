// Two throwaway network namespaces joined by a veth pair, for the reachability tests. The host's
// own interfaces and routes are never touched: every `ip` command names a namespace (`-n`).
//
//   client namespace            server namespace
//   va 10.213.0.1/24  <-veth->  vb 10.213.0.2/24,  lo + 198.51.100.1/32 (the server's address)
//
// 198.51.100.1 (TEST-NET-2) is reachable from the client only through a default route via
// 10.213.0.2; without it `connect` fails with ENETUNREACH.
// Process, Pipe and DispatchSemaphore: full Foundation only (the FetchTests rule).
#if FullFoundation
import EventLoop
import Foundation
import Glibc
import Synchronization

final class NetworkNamespaces: @unchecked Sendable {
    // @unchecked Sendable: all stored properties are immutable after init.
    static let serverAddress = "198.51.100.1"
    static let serverPort = 18_080
    let client: String
    let server: String
    /// A one-thread group whose loop thread joined the client namespace: every socket it opens
    /// (connections, netlink) lives there.
    let group: EventLoopGroup
    /// The HTTP server's PID (`ip netns exec` execs it, so this is python itself).
    private let serverPID: pid_t

    /// Why the tests cannot run here, or nil.
    static var unavailableReason: String? {
        if getuid() != 0 { return "needs root to create network namespaces" }
        if locate("ip") == nil { return "`ip` (iproute2) is not installed" }
        if locate("python3") == nil { return "python3 is not installed" }
        return nil
    }

    init() throws {
        let tag = "\(getpid() % 100_000)-\(UInt16.random(in: 0...UInt16.max))"
        client = "lariat-rc-\(tag)"
        server = "lariat-rs-\(tag)"
        let veth = "lr\(UInt32.random(in: 0..<1_000_000))"
        clientInterface = "\(veth)a"
        do {
            try Self.ip(["netns", "add", client])
            try Self.ip(["netns", "add", server])
            try Self.ip(["-n", client, "link", "add", "\(veth)a", "type", "veth", "peer", "name", "\(veth)b", "netns", server])
            try Self.ip(["-n", client, "link", "set", "lo", "up"])
            try Self.ip(["-n", server, "link", "set", "lo", "up"])
            try Self.ip(["-n", client, "addr", "add", "10.213.0.1/24", "dev", "\(veth)a"])
            try Self.ip(["-n", server, "addr", "add", "10.213.0.2/24", "dev", "\(veth)b"])
            try Self.ip(["-n", server, "addr", "add", "\(Self.serverAddress)/32", "dev", "lo"])
            try Self.ip(["-n", client, "link", "set", "\(veth)a", "up"])
            try Self.ip(["-n", server, "link", "set", "\(veth)b", "up"])
        } catch {
            try? Self.ip(["netns", "del", client])
            try? Self.ip(["netns", "del", server])
            throw error
        }

        do {
            serverPID = try Self.spawn(Self.locate("ip")!, [
                "netns", "exec", server, Self.locate("python3")!, "-m", "http.server", "--bind", Self.serverAddress, "\(Self.serverPort)",
            ])
        } catch {
            try? Self.ip(["netns", "del", client])
            try? Self.ip(["netns", "del", server])
            throw error
        }

        group = EventLoopGroup(numberOfThreads: 1)
        let path = "/var/run/netns/\(client)"
        let joined = Mutex<Int32>(-1)
        let done = DispatchSemaphore(value: 0)
        group.next().execute {
            let fd = open(path, O_RDONLY | O_CLOEXEC)
            let result = fd < 0 ? -1 : Self.setns(fd, 0x4000_0000)  // CLONE_NEWNET
            let code = result == 0 ? 0 : errno
            if fd >= 0 { close(fd) }
            joined.withLock { $0 = code }
            done.signal()
        }
        done.wait()
        let code = joined.withLock { $0 }
        guard code == 0 else {
            tearDown()
            throw NamespaceError(message: "setns(\(path)): errno \(code)")
        }
    }

    /// The client end of the veth pair.
    let clientInterface: String

    func addDefaultRoute() throws { try Self.ip(["-n", client, "route", "add", "default", "via", "10.213.0.2", "dev", clientInterface]) }
    func removeDefaultRoute() throws { try Self.ip(["-n", client, "route", "del", "default"]) }

    /// Waits until the server in its namespace accepts connections (at most 5 s).
    func waitForServer() throws {
        for _ in 0..<100 {
            let probe = "exec 3<>/dev/tcp/\(Self.serverAddress)/\(Self.serverPort)"
            if (try? Self.run(Self.locate("ip")!, ["netns", "exec", server, "bash", "-c", probe])) != nil { return }
            usleep(50_000)
        }
        throw NamespaceError(message: "server in \(server) did not start")
    }

    /// Stops the server (by PID), the loop, and deletes both namespaces (which removes the veth pair).
    func tearDown() {
        kill(serverPID, SIGKILL)
        var status: Int32 = 0
        while waitpid(serverPID, &status, 0) < 0 && errno == EINTR {}
        group.shutdown()
        try? Self.ip(["netns", "del", client])
        try? Self.ip(["netns", "del", server])
    }

    struct NamespaceError: Error, CustomStringConvertible {
        let message: String
        var description: String { message }
    }

    static func ip(_ arguments: [String]) throws {
        try run(locate("ip")!, arguments)
    }

    @discardableResult
    static func run(_ tool: String, _ arguments: [String]) throws -> String {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: tool)
        process.arguments = arguments
        let pipe = Pipe()
        process.standardOutput = pipe
        process.standardError = pipe
        try process.run()
        let output = String(decoding: pipe.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        guard process.terminationStatus == 0 else {
            throw NamespaceError(message: "\(tool) \(arguments.joined(separator: " ")) exited \(process.terminationStatus): \(output)")
        }
        return output
    }

    /// Starts `tool` with stdout and stderr on /dev/null; returns its PID.
    static func spawn(_ tool: String, _ arguments: [String]) throws -> pid_t {
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_addopen(&actions, 1, "/dev/null", O_WRONLY, 0)
        posix_spawn_file_actions_addopen(&actions, 2, "/dev/null", O_WRONLY, 0)
        let argv: [UnsafeMutablePointer<CChar>?] = ([tool] + arguments).map { strdup($0) } + [nil]
        defer { for pointer in argv { free(pointer) } }
        var pid: pid_t = 0
        let code = posix_spawn(&pid, tool, &actions, nil, argv, environ)
        guard code == 0 else { throw NamespaceError(message: "posix_spawn \(tool): errno \(code)") }
        return pid
    }

    /// glibc's `setns`, which the Glibc module hides (it is declared under _GNU_SOURCE only).
    static func setns(_ fd: Int32, _ type: Int32) -> Int32 {
        typealias SetNS = @convention(c) (Int32, Int32) -> Int32
        guard let handle = dlopen(nil, RTLD_NOW), let symbol = dlsym(handle, "setns") else { return -1 }
        return unsafeBitCast(symbol, to: SetNS.self)(fd, type)
    }

    static func locate(_ tool: String) -> String? {
        for directory in ["/usr/sbin", "/usr/bin", "/sbin", "/bin"] where access("\(directory)/\(tool)", X_OK) == 0 {
            return "\(directory)/\(tool)"
        }
        return nil
    }
}
#endif
