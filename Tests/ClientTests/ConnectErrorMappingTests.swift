import Glibc
import EventLoop
#if FullFoundation
import Foundation
#endif
import Testing
@testable import Client
@testable import Transport

/// Which `URLError.Code` a failed `connect` becomes. Only a missing route to the network is
/// `.notConnectedToInternet` (what `OfflineRetrier` waits on): a host without a route on a
/// network that works (`EHOSTUNREACH`, common on a LAN) is `.cannotConnectToHost`, as Apple
/// reports it, else `OfflineRetrier` would retry it at once, again and again, while the path
/// stays satisfied.
@Suite struct ConnectErrorMappingTests {
    static let rows: [(errno: Int32, name: String, code: URLError.Code)] = [
        (ENETUNREACH, "ENETUNREACH", .notConnectedToInternet),
        (ENETDOWN, "ENETDOWN", .notConnectedToInternet),
        (EHOSTUNREACH, "EHOSTUNREACH", .cannotConnectToHost),
        (EHOSTDOWN, "EHOSTDOWN", .cannotConnectToHost),
        (ECONNREFUSED, "ECONNREFUSED", .cannotConnectToHost),
        (ETIMEDOUT, "ETIMEDOUT", .timedOut),
    ]

    @Test(arguments: rows.indices)
    func connectErrno(row: Int) {
        let (errno, name, code) = Self.rows[row]
        let error = TransportError.connecting(SocketError(errno: errno, syscall: "connect"), host: "h.example")
        #expect(error.urlErrorCode == code, "\(name)")
    }
}
