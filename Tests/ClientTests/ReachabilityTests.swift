// Reachability without namespaces: the verdict-to-NWPath mapping and filters, the default
// offline-error test, and the manager against this machine's own routes (read only).
import Dispatch
import EventLoop
#if FullFoundation
import Foundation
#else
import FoundationEssentials
#endif
import Synchronization
import Testing
@testable import Client

@Suite struct ReachabilityTests {
    /// (scenario, verdict, required, prohibited, expected path)
    static let paths: [(String, PathStatus, NWInterface.InterfaceType?, [NWInterface.InterfaceType], NWPath)] = [
        ("no route", .unsatisfied, nil, [], NWPath(status: .unsatisfied, availableInterfaceTypes: [])),
        ("ethernet", .satisfied([.ethernet]), nil, [], NWPath(status: .satisfied, availableInterfaceTypes: [.wiredEthernet])),
        ("wifi and tunnel, wifi first", .satisfied([.wifi, .tunnel]), nil, [], NWPath(status: .satisfied, availableInterfaceTypes: [.wifi, .other])),
        ("tunnel and other fold into one .other", .satisfied([.tunnel, .other]), nil, [], NWPath(status: .satisfied, availableInterfaceTypes: [.other])),
        ("required wifi, only ethernet", .satisfied([.ethernet]), .wifi, [], NWPath(status: .unsatisfied, availableInterfaceTypes: [])),
        ("required wifi, wifi and ethernet", .satisfied([.wifi, .ethernet]), .wifi, [], NWPath(status: .satisfied, availableInterfaceTypes: [.wifi])),
        ("tunnel prohibited, only tunnel", .satisfied([.tunnel]), nil, [.other], NWPath(status: .unsatisfied, availableInterfaceTypes: [])),
        ("loopback prohibited, ethernet left", .satisfied([.ethernet, .loopback]), nil, [.loopback], NWPath(status: .satisfied, availableInterfaceTypes: [.wiredEthernet])),
    ]

    @Test(arguments: 0..<paths.count)
    func verdictToPath(_ row: Int) {
        let (name, status, required, prohibited, expected) = Self.paths[row]
        #expect(NWPath(status, required: required, prohibited: prohibited) == expected, "\(name)")
    }

    /// (scenario, error, offline?)
    static let offlineErrors: [(String, any Error & Sendable, Bool)] = [
        ("URLError notConnectedToInternet", URLError(.notConnectedToInternet), true),
        ("wrapped in AFError.sessionTaskFailed", AFError.sessionTaskFailed(error: URLError(.notConnectedToInternet)), true),
        ("timed out is not offline", AFError.sessionTaskFailed(error: URLError(.timedOut)), false),
        ("cannot connect is not offline", URLError(.cannotConnectToHost), false),
        ("explicitly cancelled", AFError.explicitlyCancelled, false),
    ]

    @Test(arguments: 0..<offlineErrors.count)
    func defaultOfflineTest(_ row: Int) {
        let (name, error, offline) = Self.offlineErrors[row]
        #expect(OfflineRetrier.defaultIsOfflineError(error) == offline, "\(name)")
    }

    @Test func interfaceNamesCannotLeaveSysfs() {
        #expect(!interfaceIsWireless(named: ".."))
        #expect(!interfaceIsWireless(named: "../../etc"))
        #expect(!interfaceIsWireless(named: ""))
        #expect(!interfaceIsWireless(named: "lo"))
    }

    @Test func dispatchIntervals() {
        #expect(DispatchTimeInterval.seconds(5).lariatNanoseconds == 5_000_000_000)
        #expect(DispatchTimeInterval.milliseconds(300).lariatNanoseconds == 300_000_000)
        #expect(DispatchTimeInterval.seconds(.max).lariatNanoseconds == .max)
        #expect(DispatchTimeInterval.never.lariatNanoseconds == nil)
    }

    /// The host's own path, read only: the listener's first status equals the one-off check.
    @Test func managerOnThisMachine() async throws {
        let manager = try #require(NetworkReachabilityManager())
        let once = manager.status
        #expect(once != .unknown)
        #expect(!manager.isReachableOnCellular)
        let first = Mutex<NetworkReachabilityManager.NetworkReachabilityStatus?>(nil)
        #expect(manager.startListening(onQueue: DispatchQueue(label: "test.reachability")) { status in
            first.withLock { if $0 == nil { $0 = status } }
        })
        defer { manager.stopListening() }
        for _ in 0..<500 where first.withLock({ $0 == nil }) { try await Task.sleep(for: .milliseconds(10)) }
        #expect(first.withLock { $0 } == once)
        #expect(NetworkReachabilityManager(host: "") == nil)
        #expect(NetworkReachabilityManager(host: "example.com") != nil)
    }
}
