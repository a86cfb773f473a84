// A 64 MiB download through LariatTransport in a child process (lariat-openapi-probe), its
// memory sampled from /proc while it runs: the body is streamed, never held. With a consumer
// slower than the server (--slow), the socket reads stop while 1 MiB waits (back-pressure).
#if FullFoundation
import Foundation
import Testing
import Synchronization
import LariatTestSupport

/// `lariat-openapi-probe` next to the running test bundle, if it was built.
private let probeExecutable: String? = {
    guard let executable = try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe") else { return nil }
    let candidate = URL(fileURLWithPath: executable).deletingLastPathComponent().appendingPathComponent("lariat-openapi-probe").path
    return FileManager.default.isExecutableFile(atPath: candidate) ? candidate : nil
}()

@Suite("LariatTransport streaming memory", .enabled(if: probeExecutable != nil, "lariat-openapi-probe is not built next to the tests"))
struct StreamingMemoryTests {
    static let bodySize = 64 << 20

    /// VmHWM (peak resident) and RssAnon (resident anonymous: the heap) of `pid`, in KiB.
    fileprivate static func memoryKiB(_ pid: Int32) -> (peak: Int, anonymous: Int)? {
        guard let status = try? String(contentsOfFile: "/proc/\(pid)/status", encoding: .utf8) else { return nil }
        func field(_ name: String) -> Int? {
            status.split(separator: "\n").first { $0.hasPrefix(name) }.flatMap { Int($0.dropFirst(name.count).filter(\.isNumber)) }
        }
        guard let peak = field("VmHWM:"), let anonymous = field("RssAnon:") else { return nil }
        return (peak, anonymous)
    }

    @Test("64 MiB through HTTPBody: the probe's resident memory stays under 32 MiB", arguments: [false, true])
    func boundedMemory(slowConsumer: Bool) throws {
        let piece = [UInt8](repeating: 0x62, count: 1 << 20)
        let body: [ScriptedServer.Step] = Array(repeating: [.send(piece), .sleep(.milliseconds(1))], count: Self.bodySize >> 20).flatMap { $0 }
        let server = try ScriptedServer(script: [.expectRequest, .send("HTTP/1.1 200 OK\r\nContent-Length: \(Self.bodySize)\r\n\r\n")]
                                            + body + [.close], stepTimeout: .seconds(30))
        defer { server.stop() }
        let process = Process()
        process.executableURL = URL(fileURLWithPath: try #require(probeExecutable))
        process.arguments = ["http://127.0.0.1:\(server.port)/bytes/\(Self.bodySize)"] + (slowConsumer ? ["--slow"] : [])
        let output = Pipe()
        process.standardOutput = output
        process.standardError = FileHandle.nullDevice
        try process.run()
        let sampler = MemorySampler(pid: process.processIdentifier)
        let printed = String(decoding: output.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        let (peak, anonymous) = sampler.stop()
        #expect(process.terminationStatus == 0, "\(printed)")
        #expect(printed == "status 200 bytes \(Self.bodySize)\n")
        #expect(peak > 4 * 1024, "the sampler saw the running process (VmHWM \(peak) KiB)")
        let environment = ProcessInfo.processInfo.environment
        let sanitized = environment["ASAN_OPTIONS"] != nil || environment["TSAN_OPTIONS"] != nil
        #expect(sanitized || peak < 32 * 1024, "peak RSS \(peak) KiB")
        #expect(sanitized || anonymous < 24 * 1024, "anonymous memory \(anonymous) KiB")
        print("lariat-openapi-probe\(slowConsumer ? " --slow" : ""): peak RSS \(peak) KiB, anonymous \(anonymous) KiB for a \(Self.bodySize >> 20) MiB body")
    }

    /// Samples a process's memory every millisecond on its own thread until stopped.
    private final class MemorySampler: Sendable {
        private let state = Mutex((peak: 0, anonymous: 0, stopping: false))
        private let finished = DispatchSemaphore(value: 0)

        init(pid: Int32) {
            Thread { [self] in
                while !state.withLock({ $0.stopping }) {
                    if let sample = StreamingMemoryTests.memoryKiB(pid) {
                        state.withLock { ($0.peak, $0.anonymous) = (max($0.peak, sample.peak), max($0.anonymous, sample.anonymous)) }
                    }
                    usleep(1000)
                }
                finished.signal()
            }.start()
        }

        func stop() -> (peak: Int, anonymous: Int) {
            state.withLock { $0.stopping = true }
            finished.wait()
            return state.withLock { ($0.peak, $0.anonymous) }
        }
    }
}
#endif
