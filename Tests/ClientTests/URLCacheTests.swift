// URLCache without sockets: memory and disk storage, a "restarted" process (a new URLCache over
// the same directory), torn and corrupt entry files (misses), LRU eviction within capacity, the
// per-entry limit, storage policies and Vary.
#if FullFoundation
import Foundation
#else
import FoundationEssentials
#endif
#if canImport(Glibc)
import Glibc
#endif
import Testing
@testable import Client

/// A fresh directory for one test's disk cache.
private func cacheDirectory() -> URL {
    FileManager.default.temporaryDirectory.appendingPathComponent("lariat-cache-test-\(UUID().uuidString)")
}

private func request(_ path: String, headers: HTTPHeaders = [:]) -> URLRequest {
    var request = URLRequest(url: URL(string: "http://cache.test\(path)")!)
    request.headers = headers
    return request
}

private func entry(_ path: String, body: Int, headers: [String: String] = ["Cache-Control": "max-age=60"],
                   policy: URLCache.StoragePolicy = .allowed) -> CachedURLResponse {
    let response = HTTPURLResponse(url: URL(string: "http://cache.test\(path)")!, statusCode: 200, headers: HTTPHeaders(headers))
    return CachedURLResponse(response: response, data: Data(repeating: UInt8(body % 251), count: body), userInfo: nil, storagePolicy: policy)
}

@Suite("URLCache")
struct URLCacheTests {
    @Test("memory: stored, found, removed; usage follows")
    func memory() {
        let cache = URLCache(memoryCapacity: 100_000, diskCapacity: 0)
        cache.storeCachedResponse(entry("/a", body: 1000), for: request("/a"))
        let found = cache.cachedResponse(for: request("/a"))
        #expect(found?.data.count == 1000)
        #expect(found?.response.statusCode == 200)
        #expect(cache.currentMemoryUsage >= 1000)
        #expect(cache.cachedResponse(for: request("/a#fragment")) != nil, "the fragment is not part of the key")
        cache.removeCachedResponse(for: request("/a"))
        #expect(cache.cachedResponse(for: request("/a")) == nil)
        #expect(cache.currentMemoryUsage == 0)
    }

    @Test("memory: least recently used goes first; an entry over 5% of the capacity is not kept")
    func memoryEviction() {
        let cache = URLCache(memoryCapacity: 100_000, diskCapacity: 0)
        for index in 0..<20 { cache.storeCachedResponse(entry("/\(index)", body: 4_000), for: request("/\(index)")) }
        _ = cache.cachedResponse(for: request("/0"))  // touched: survives
        for index in 20..<30 { cache.storeCachedResponse(entry("/\(index)", body: 4_000), for: request("/\(index)")) }
        #expect(cache.currentMemoryUsage <= 100_000)
        #expect(cache.cachedResponse(for: request("/0")) != nil)
        #expect(cache.cachedResponse(for: request("/1")) == nil)
        cache.storeCachedResponse(entry("/big", body: 5_001), for: request("/big"))
        #expect(cache.cachedResponse(for: request("/big")) == nil)
    }

    @Test("disk: a new cache over the same directory finds the entry (a process restart)")
    func restart() throws {
        let directory = cacheDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let first = URLCache(memoryCapacity: 0, diskCapacity: 1_000_000, directory: directory)
        first.storeCachedResponse(entry("/kept", body: 2_000, headers: ["Cache-Control": "max-age=60", "ETag": "\"e\"", "Vary": "Accept"]),
                                  for: request("/kept", headers: ["Accept": "text/plain"]))
        #expect(first.currentDiskUsage > 2_000)
        let second = URLCache(memoryCapacity: 0, diskCapacity: 1_000_000, directory: directory)
        let found = try #require(second.cachedResponse(for: request("/kept", headers: ["Accept": "text/plain"])))
        #expect(found.data == Data(repeating: UInt8(2_000 % 251), count: 2_000))
        #expect(found.response.headers.value(for: "ETag") == "\"e\"")
        #expect(second.currentDiskUsage == first.currentDiskUsage)
        // Vary: another Accept does not match.
        #expect(second.cachedResponse(for: request("/kept", headers: ["Accept": "application/json"])) == nil)
    }

    @Test("disk: a torn entry file (cut at every tenth of its length) is a miss, and removed", arguments: [0.0, 0.1, 0.5, 0.9, 0.999])
    func tornEntry(_ fraction: Double) throws {
        let directory = cacheDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let cache = URLCache(memoryCapacity: 0, diskCapacity: 1_000_000, directory: directory)
        cache.storeCachedResponse(entry("/torn", body: 3_000), for: request("/torn"))
        let file = directory.appendingPathComponent(DiskCacheStore.fileName(for: "http://cache.test/torn"))
        let bytes = try Data(contentsOf: file)
        try bytes.prefix(Int(Double(bytes.count) * fraction)).write(to: file)
        let restarted = URLCache(memoryCapacity: 0, diskCapacity: 1_000_000, directory: directory)
        #expect(restarted.cachedResponse(for: request("/torn")) == nil)
        #expect(!FileManager.default.fileExists(atPath: file.path))
    }

    @Test("disk: a flipped byte anywhere is a miss")
    func corruptEntry() throws {
        let directory = cacheDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let cache = URLCache(memoryCapacity: 0, diskCapacity: 1_000_000, directory: directory)
        cache.storeCachedResponse(entry("/bad", body: 500), for: request("/bad"))
        let file = directory.appendingPathComponent(DiskCacheStore.fileName(for: "http://cache.test/bad"))
        var bytes = [UInt8](try Data(contentsOf: file))
        for index in stride(from: 0, to: bytes.count, by: 37) {
            bytes[index] ^= 0x40
            #expect(DiskCacheStore.decode(Data(bytes)) == nil, "flipped byte \(index) went unnoticed")
            bytes[index] ^= 0x40
        }
        #expect(DiskCacheStore.decode(Data(bytes)) != nil)
    }

    @Test("disk: a write that never reached its rename is cleaned up; the old entry stays")
    func interruptedWrite() throws {
        let directory = cacheDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let cache = URLCache(memoryCapacity: 0, diskCapacity: 1_000_000, directory: directory)
        cache.storeCachedResponse(entry("/x", body: 100), for: request("/x"))
        let leftover = directory.appendingPathComponent(".tmp-\(UUID().uuidString)")
        try Data("half an entry".utf8).write(to: leftover)
        let restarted = URLCache(memoryCapacity: 0, diskCapacity: 1_000_000, directory: directory)
        #expect(restarted.cachedResponse(for: request("/x"))?.data.count == 100)
        #expect(!FileManager.default.fileExists(atPath: leftover.path))
    }

    @Test("disk: never past its capacity, least recently used first; an entry over 5% is not written")
    func diskEviction() throws {
        let directory = cacheDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let cache = URLCache(memoryCapacity: 0, diskCapacity: 200_000, directory: directory)
        for index in 0..<40 {
            cache.storeCachedResponse(entry("/\(index)", body: 9_000), for: request("/\(index)"))
            #expect(cache.currentDiskUsage <= 200_000)
        }
        #expect(cache.cachedResponse(for: request("/39")) != nil)
        #expect(cache.cachedResponse(for: request("/0")) == nil)
        cache.storeCachedResponse(entry("/big", body: 10_001), for: request("/big"))
        #expect(cache.cachedResponse(for: request("/big")) == nil)
        let files = try FileManager.default.contentsOfDirectory(atPath: directory.path)
        let total = try files.reduce(0) { $0 + ((try FileManager.default.attributesOfItem(atPath: directory.appendingPathComponent($1).path)[.size] as? Int) ?? 0) }
        #expect(total == cache.currentDiskUsage)
    }

    @Test("storage policies: memory only never reaches the disk; not allowed is not stored")
    func policies() {
        let directory = cacheDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let cache = URLCache(memoryCapacity: 100_000, diskCapacity: 1_000_000, directory: directory)
        cache.storeCachedResponse(entry("/m", body: 100, policy: .allowedInMemoryOnly), for: request("/m"))
        cache.storeCachedResponse(entry("/n", body: 100, policy: .notAllowed), for: request("/n"))
        #expect(cache.cachedResponse(for: request("/m")) != nil)
        #expect(cache.cachedResponse(for: request("/n")) == nil)
        #expect(cache.currentDiskUsage == 0)
        let restarted = URLCache(memoryCapacity: 100_000, diskCapacity: 1_000_000, directory: directory)
        #expect(restarted.cachedResponse(for: request("/m")) == nil)
    }

    @Test("removeAllCachedResponses and removeCachedResponses(since:)")
    func removal() {
        let directory = cacheDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let cache = URLCache(memoryCapacity: 100_000, diskCapacity: 1_000_000, directory: directory)
        cache.storeCachedResponse(entry("/1", body: 10), for: request("/1"))
        cache.removeCachedResponses(since: Date(timeIntervalSinceNow: 3600))
        #expect(cache.cachedResponse(for: request("/1")) != nil)
        cache.removeCachedResponses(since: Date(timeIntervalSinceNow: -3600))
        #expect(cache.cachedResponse(for: request("/1")) == nil)
        cache.storeCachedResponse(entry("/2", body: 10), for: request("/2"))
        cache.removeAllCachedResponses()
        #expect(cache.cachedResponse(for: request("/2")) == nil)
        #expect(cache.currentMemoryUsage == 0 && cache.currentDiskUsage == 0)
    }
}
