import Foundation
import Testing
@testable import TLS

/// Small, bounded measurements printed with the test output (not pass/fail thresholds: the
/// machine is shared). They answer "is the BIO-pair staging copy a bottleneck?" and "what does
/// resumption save?".
@Suite struct MeasurementTests {
    func seconds(_ body: () throws -> Void) rethrows -> Double {
        let start = DispatchTime.now().uptimeNanoseconds
        try body()
        return Double(DispatchTime.now().uptimeNanoseconds - start) / 1e9
    }

    @Test func handshakeCost() throws {
        let rounds = 40
        let server = try Fixture.serverContext(PKI.shared.leaf)
        let plain = try Fixture.clientContext()
        let cache = TLSSessionCache()
        let resuming = try Fixture.clientContext(cache: cache)
        let full = try seconds {
            for _ in 0..<rounds {
                let pump = try Fixture.pump(client: plain, server: server)
                #expect(pump.handshake().client.isComplete)
            }
        }
        var reused = 0
        let resumed = try seconds {
            for _ in 0..<rounds {
                let pump = try Fixture.pump(client: resuming, server: server)
                #expect(pump.handshake().client.isComplete)
                _ = pump.server.write([0])
                pump.shuttle()
                _ = pump.clientRead()
                if pump.client.isSessionReused { reused += 1 }
            }
        }
        #expect(reused == rounds - 1)
        print(String(format: "TLS 1.3 handshake, client+server in-process: full %.2f ms, with resumption %.2f ms (%d/%d resumed)",
                     full / Double(rounds) * 1e3, resumed / Double(rounds) * 1e3, reused, rounds))
    }

    @Test func bulkThroughput() throws {
        let pump = try Fixture.pump(client: Fixture.clientContext(), server: Fixture.serverContext(PKI.shared.leaf))
        #expect(pump.handshake().client.isComplete)
        let chunk = [UInt8](repeating: 0x61, count: 16384)
        let total = 8 << 20
        var received = 0
        var buffer = [UInt8](repeating: 0, count: 65536)
        let elapsed = seconds {
            var sent = 0
            while received < total {
                if sent < total, case .written(let count) = pump.server.write(chunk) { sent += count }
                let ciphertext = pump.server.takeCiphertext()
                var offset = 0
                while offset < ciphertext.count {
                    offset += ciphertext[offset...].withUnsafeBytes { pump.client.receiveCiphertext($0) }
                    while case .bytes(let count) = buffer.withUnsafeMutableBytes({ pump.client.read(into: $0) }) { received += count }
                }
            }
        }
        #expect(received == total)
        print(String(format: "bulk %d MiB server→client (encrypt+decrypt, one core): %.0f MiB/s", total >> 20, Double(total >> 20) / elapsed))
    }
}
