#if FullFoundation
public import Foundation
#else
public import FoundationEssentials
#endif
import Synchronization

/// Stores responses in memory and on disk, keyed by URL, for HTTP caching.
///
/// Lariat's own `URLCache` (Foundation's lives in FoundationNetworking on Linux). A session uses
/// the one in its configuration's ``URLSessionConfiguration/urlCache`` for GET requests of a
/// ``DataRequest``, following RFC 9111 for a private cache (freshness, `Age`, `ETag`/`Last-Modified`
/// revalidation, `Vary`); see the README's "HTTP caching".
///
/// - Memory: least-recently-used entries go first when ``memoryCapacity`` is exceeded; an entry
///   larger than 5% of it is not kept in memory (Apple's rule).
/// - Disk: one file per entry in ``directory``, written to a temporary file, flushed and renamed
///   into place, so a crash mid-write leaves the old entry or none, never a torn one; a corrupt or
///   truncated file is a miss and is removed. Least-recently-used entries go first when
///   ``diskCapacity`` is exceeded; an entry larger than 5% of it is not written. Entries survive a
///   process restart: a new cache over the same directory finds them.
///
/// Thread-safe. Disk reads and writes happen on the calling thread.
public final class URLCache: Sendable {
    /// A process-wide cache, memory only, 512 KiB (Apple's memory figure; no disk cache, see the
    /// README). Unlike Apple's, no configuration uses it unless given it: each default
    /// configuration has a cache of its own, so responses are never shared across sessions.
    public static let shared = URLCache(memoryCapacity: defaultMemoryCapacity, diskCapacity: 0, directory: nil)

    /// The memory capacity of ``shared`` and of the configurations' own caches: 512 KiB.
    static let defaultMemoryCapacity = 512 * 1024

    private struct Memory {
        var entries: [String: (response: CachedURLResponse, size: Int, lastUse: UInt64)] = [:]
        var usage = 0
        var clock: UInt64 = 0
        var capacity: Int
    }

    private let memory: Mutex<Memory>
    private let disk: DiskCacheStore?

    /// Creates a cache.
    /// - Parameters:
    ///   - memoryCapacity: Bytes kept in memory; 0 keeps nothing in memory.
    ///   - diskCapacity: Bytes kept on disk; 0 (or no `directory`) keeps nothing on disk.
    ///   - directory: Where disk entries live (created if missing); `nil` for none.
    public init(memoryCapacity: Int, diskCapacity: Int, directory: URL? = nil) {
        memory = Mutex(Memory(capacity: max(0, memoryCapacity)))
        disk = directory.flatMap { diskCapacity > 0 ? DiskCacheStore(directory: $0, capacity: diskCapacity) : nil }
    }

    /// Creates a cache with its disk entries at a path, as Foundation's older initializer.
    /// - Parameters:
    ///   - memoryCapacity: Bytes kept in memory; 0 keeps nothing in memory.
    ///   - diskCapacity: Bytes kept on disk; 0 (or no `diskPath`) keeps nothing on disk.
    ///   - diskPath: An absolute directory path, or a path relative to the user's cache directory
    ///     (`$XDG_CACHE_HOME`, else `~/.cache`: Foundation puts it under the app's cache directory,
    ///     which Linux does not have); created if missing. `nil` for no disk cache (Foundation picks a
    ///     default location instead; Lariat writes nothing to disk unless told where).
    public convenience init(memoryCapacity: Int, diskCapacity: Int, diskPath: String?) {
        self.init(memoryCapacity: memoryCapacity, diskCapacity: diskCapacity, directory: diskPath.map(Self.directory(forDiskPath:)))
    }

    /// The directory for a `diskPath`: itself if absolute, else inside the user's cache directory.
    static func directory(forDiskPath path: String) -> URL {
        if path.hasPrefix("/") { return URL(filePath: path, directoryHint: .isDirectory) }
        let environment = ProcessInfo.processInfo.environment
        let base = environment["XDG_CACHE_HOME"].flatMap { $0.hasPrefix("/") ? $0 : nil }
            ?? ((environment["HOME"] ?? FileManager.default.temporaryDirectory.path) + "/.cache")
        return URL(filePath: base, directoryHint: .isDirectory).appending(path: path, directoryHint: .isDirectory)
    }

    /// Bytes the memory cache may hold; lowering it evicts at once.
    public var memoryCapacity: Int {
        get { memory.withLock { $0.capacity } }
        set { memory.withLock { $0.capacity = max(0, newValue); Self.evict(&$0) } }
    }

    /// Bytes the disk cache may hold; 0 when there is no disk cache.
    public var diskCapacity: Int { disk?.capacity ?? 0 }

    /// The disk cache's directory, if any.
    public var directory: URL? { disk?.directory }

    /// Bytes held in memory now.
    public var currentMemoryUsage: Int { memory.withLock { $0.usage } }

    /// Bytes held on disk now.
    public var currentDiskUsage: Int { disk?.usage ?? 0 }

    /// The stored response for `request`'s URL, from memory or disk, if any; `nil` when the
    /// stored response's `Vary` fields do not match `request`.
    public func cachedResponse(for request: URLRequest) -> CachedURLResponse? {
        // An empty cache (the common case for a session talking to an API that sends no
        // freshness or validators) answers without building a key.
        if disk == nil, memory.withLock({ $0.entries.isEmpty }) { return nil }
        guard let key = Self.key(for: request) else { return nil }
        let inMemory = memory.withLock { state -> CachedURLResponse? in
            guard let entry = state.entries[key] else { return nil }
            state.clock += 1
            state.entries[key]?.lastUse = state.clock
            return entry.response
        }
        guard let found = inMemory ?? disk?.read(key: key) else { return nil }
        if inMemory == nil, found.storagePolicy == .allowed { remember(found, key: key) }
        return found.matchesVary(of: request) ? found : nil
    }

    /// Stores `cachedResponse` for `request`'s URL, where its ``CachedURLResponse/storagePolicy`` allows.
    public func storeCachedResponse(_ cachedResponse: CachedURLResponse, for request: URLRequest) {
        guard let key = Self.key(for: request), cachedResponse.storagePolicy != .notAllowed else { return }
        // The Vary fields are matched against the request it is stored for.
        let cachedResponse = cachedResponse.bound(to: request, requestTime: cachedResponse.requestTime,
                                                  responseTime: cachedResponse.responseTime)
        remember(cachedResponse, key: key)
        if cachedResponse.storagePolicy == .allowed { disk?.write(cachedResponse, key: key) } else { disk?.remove(key: key) }
    }

    /// Removes the stored response for `request`'s URL.
    public func removeCachedResponse(for request: URLRequest) {
        guard let key = Self.key(for: request) else { return }
        memory.withLock { state in
            if let old = state.entries.removeValue(forKey: key) { state.usage -= old.size }
        }
        disk?.remove(key: key)
    }

    /// Removes every stored response.
    public func removeAllCachedResponses() {
        memory.withLock { $0.entries = [:]; $0.usage = 0 }
        disk?.removeAll()
    }

    /// Removes responses stored at or after `date`.
    public func removeCachedResponses(since date: Date) {
        let since = date.timeIntervalSince1970
        memory.withLock { state in
            for (key, entry) in state.entries where entry.response.responseTime >= since {
                state.entries[key] = nil
                state.usage -= entry.size
            }
        }
        disk?.removeEntries(since: since)
    }

    /// Keeps `response` in memory under `key` if it fits (at most 5% of the capacity).
    private func remember(_ response: CachedURLResponse, key: String) {
        let size = Self.size(of: response)
        memory.withLock { state in
            if let old = state.entries.removeValue(forKey: key) { state.usage -= old.size }
            guard size <= state.capacity / 20 else { return }
            state.clock += 1
            state.entries[key] = (response, size, state.clock)
            state.usage += size
            Self.evict(&state)
        }
    }

    /// Drops least-recently-used entries until the usage fits.
    private static func evict(_ state: inout Memory) {
        while state.usage > state.capacity, let oldest = state.entries.min(by: { $0.value.lastUse < $1.value.lastUse }) {
            state.entries[oldest.key] = nil
            state.usage -= oldest.value.size
        }
    }

    /// An entry's size: its body plus its header fields.
    static func size(of response: CachedURLResponse) -> Int {
        response.data.count + response.response.headers.reduce(0) { $0 + $1.name.utf8.count + $1.value.utf8.count + 4 }
    }

    /// The key: the URL without its fragment.
    static func key(for request: URLRequest) -> String? {
        guard let url = request.url else { return nil }
        let text = url.absoluteString
        if let hash = text.firstIndex(of: "#") { return String(text[..<hash]) }
        return text
    }
}
