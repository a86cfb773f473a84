// errno classification (the one place it happens), resolver codes, and SocketAddress parsing.
@testable import EventLoop
import Glibc
import Testing

extension EventLoopTests {
    @Suite struct SocketErrorTests {
        // (errno, expected kind)
        static let kinds: [(Int32, SocketError.Kind)] = [
            (ECONNREFUSED, .connectionRefused),
            (ECONNRESET, .connectionReset),
            (EPIPE, .connectionReset),
            (ECONNABORTED, .connectionReset),
            (ENETUNREACH, .networkUnreachable),
            (ENETDOWN, .networkUnreachable),
            (EHOSTUNREACH, .hostUnreachable),
            (EHOSTDOWN, .hostUnreachable),
            (ETIMEDOUT, .timedOut),
            (EMFILE, .other),
            (ENOBUFS, .other),
            (EACCES, .other),
        ]

        @Test(arguments: kinds)
        func errnoMapsToKind(errno: Int32, kind: SocketError.Kind) {
            let error = SocketError(errno: errno, syscall: "connect")
            #expect(error.kind == kind)
            #expect(error.errno == errno)
            #expect(error.syscall == "connect")
            #expect(error.description.contains("connect: errno \(errno)"))
        }

        // (errno, syscall, treatment): EINTR retried, EAGAIN not an error, EINPROGRESS only for connect.
        static let treatments: [(Int32, StaticString, ErrnoClass.Treatment)] = [
            (EINTR, "recv", .retry),
            (EAGAIN, "recv", .wouldBlock),
            (EWOULDBLOCK, "sendmsg", .wouldBlock),
            (EINPROGRESS, "connect", .inProgress),
            (EINPROGRESS, "recv", .failure),
            (EBADF, "recv", .bug),
            (ENOTSOCK, "recv", .bug),
            (ECONNRESET, "recv", .failure),
            (ECONNREFUSED, "connect", .failure),
        ]

        @Test(arguments: treatments)
        func errnoTreatment(errno: Int32, syscall: StaticString, treatment: ErrnoClass.Treatment) {
            #expect(ErrnoClass.treatment(of: errno, syscall: syscall) == treatment)
        }

        @Test func retryingSyscallRetriesInterruptsAndReportsWouldBlock() throws {
            var calls = 0
            let outcome = try retryingSyscall("recv") { () -> Int in
                calls += 1
                if calls < 3 { errno = EINTR; return -1 }
                errno = EAGAIN
                return -1
            }
            #expect(outcome == .wouldBlock)
            #expect(calls == 3)
            #expect(throws: SocketError(errno: ECONNRESET, syscall: "recv")) {
                try retryingSyscall("recv") { errno = ECONNRESET; return -1 }
            }
        }

        // (getaddrinfo code, expected kind)
        static let resolverCodes: [(Int32, SocketError.Kind)] = [
            (EAI_NONAME, .hostNotFound),
            (EAI_AGAIN, .hostNotFound),
            (EAI_FAIL, .hostNotFound),
            (-5, .hostNotFound),  // EAI_NODATA
            (EAI_MEMORY, .other),
            (EAI_SERVICE, .other),
        ]

        @Test(arguments: resolverCodes)
        func resolverCodeMapsToKind(code: Int32, kind: SocketError.Kind) {
            let error = Resolver.error(code: code, errno: 0, host: "example.invalid")
            #expect(error.kind == kind)
            #expect(error.host == "example.invalid")
            #expect(error.resolverCode == code)
            #expect(error.syscall == "getaddrinfo")
        }

        @Test func resolverSystemErrorKeepsErrno() {
            let error = Resolver.error(code: EAI_SYSTEM, errno: ECONNREFUSED, host: "h")
            #expect(error.kind == .connectionRefused)
            #expect(error.errno == ECONNREFUSED)
        }

        @Test func kindsAreDistinctAndNamed() {
            let all: [SocketError.Kind] = [
                .connectionRefused, .hostNotFound, .timedOut, .connectionReset, .networkUnreachable,
                .hostUnreachable, .cancelled, .socketClosed, .eventLoopShutdown, .invalidAddress, .other,
            ]
            #expect(Set(all).count == all.count)
            #expect(SocketError.Kind.hostNotFound.description == "hostNotFound")
            let error = SocketError(kind: .hostNotFound, syscall: "getaddrinfo", host: "nowhere.invalid", resolverCode: EAI_NONAME)
            #expect(error.description.hasPrefix("hostNotFound (host nowhere.invalid, getaddrinfo: "))
        }
    }

    @Suite struct SocketAddressTests {
        // (text, port, family, description) for valid literals
        static let valid: [(String, Int, SocketAddress.Family, String)] = [
            ("127.0.0.1", 80, .ipv4, "127.0.0.1:80"),
            ("0.0.0.0", 0, .ipv4, "0.0.0.0:0"),
            ("255.255.255.255", 65535, .ipv4, "255.255.255.255:65535"),
            ("::1", 8080, .ipv6, "[::1]:8080"),
            ("::", 1, .ipv6, "[::]:1"),
            ("2001:db8::1", 443, .ipv6, "[2001:db8::1]:443"),
            ("::ffff:10.0.0.1", 443, .ipv6, "[::ffff:10.0.0.1]:443"),
        ]

        @Test(arguments: valid)
        func parsesLiterals(text: String, port: Int, family: SocketAddress.Family, description: String) throws {
            let address = try SocketAddress(ipAddress: text, port: port)
            #expect(address.family == family)
            #expect(address.port == port)
            #expect(address.description == description)
            #expect(address.withPort(1).port == 1)
            // Round trip through sockaddr.
            let back = address.withSockAddr { SocketAddress(sockaddr: $0, length: $1) }
            #expect(back == address)
        }

        // (text, port) that must be rejected
        static let invalid: [(String, Int)] = [
            ("localhost", 80), ("1.2.3", 80), ("256.0.0.1", 80), ("[::1]", 80), ("::1%lo", 80),
            ("", 80), ("127.0.0.1", -1), ("127.0.0.1", 65536), (" 127.0.0.1", 80),
        ]

        @Test(arguments: invalid)
        func rejectsNonLiterals(text: String, port: Int) {
            #expect(throws: SocketError.self) { try SocketAddress(ipAddress: text, port: port) }
            do {
                _ = try SocketAddress(ipAddress: text, port: port)
            } catch {
                #expect(error.kind == .invalidAddress)
            }
        }

        @Test func loopbackFactoriesMatchParsedLiterals() throws {
            #expect(SocketAddress.ipv4Loopback(port: 9) == (try SocketAddress(ipAddress: "127.0.0.1", port: 9)))
            #expect(SocketAddress.ipv6Loopback(port: 9) == (try SocketAddress(ipAddress: "::1", port: 9)))
            #expect(SocketAddress.ipv6Loopback(port: 9).ipAddress == "::1")
        }
    }
}
