#if FullFoundation
import Foundation
#else
import FoundationEssentials
#endif
#if canImport(Glibc)
import Glibc
#endif
import Synchronization

/// URLCache's disk half: one file per entry, named by a hash of the key.
///
/// Entry file (all integers little-endian):
///
/// | bytes | content |
/// |---|---|
/// | 8 | magic `LRTCACH1` (the format's version is its last byte) |
/// | 4 | length H of the header |
/// | H | header: JSON of ``DiskEntryHeader`` (key, status, version, fields, times, Vary values) |
/// | 8 | length B of the body |
/// | B | body |
/// | 8 | FNV-1a 64 of everything before it |
///
/// Written to `.tmp-<UUID>` in the same directory, `fsync`ed, then renamed over the entry, so a
/// crash leaves the old entry or the new one. A file that is short, too long, of another magic, or
/// whose checksum or key does not match is a miss and is removed. The index (size and last use of
/// each file) is rebuilt from the directory at start, last use from the file's modification time,
/// which a hit refreshes.
final class DiskCacheStore: Sendable {
    /// The entry files' magic.
    static let magic = Array("LRTCACH1".utf8)
    /// The largest header accepted when reading.
    static let maxHeaderSize = 1 << 20

    let directory: URL
    let capacity: Int
    private let index: Mutex<(entries: [String: (size: Int, lastUse: Double)], usage: Int)>

    /// A store in `directory` (created if missing) of at most `capacity` bytes; nil if the
    /// directory cannot be made.
    init?(directory: URL, capacity: Int) {
        self.directory = directory
        self.capacity = capacity
        do {
            try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        } catch {
            return nil
        }
        var entries: [String: (size: Int, lastUse: Double)] = [:]
        var usage = 0
        for name in (try? FileManager.default.contentsOfDirectory(atPath: directory.path)) ?? [] {
            let path = directory.appendingPathComponent(name).path
            // A write that never reached its rename.
            if name.hasPrefix(".tmp-") { unlink(path); continue }
            guard name.hasSuffix(".entry") else { continue }
            var info = stat()
            guard lstat(path, &info) == 0, (info.st_mode & S_IFMT) == S_IFREG else { continue }
            entries[name] = (Int(info.st_size), Double(info.st_mtim.tv_sec))
            usage += Int(info.st_size)
        }
        index = Mutex((entries, usage))
        evict()
    }

    /// Bytes on disk.
    var usage: Int { index.withLock { $0.usage } }

    /// The entry for `key`, or nil (missing, torn, corrupt: the last two are removed).
    func read(key: String) -> CachedURLResponse? {
        let name = Self.fileName(for: key)
        guard index.withLock({ $0.entries[name] != nil }) else { return nil }
        let url = directory.appendingPathComponent(name)
        guard let bytes = try? Data(contentsOf: url), let entry = Self.decode(bytes), entry.key == key else {
            remove(name: name)
            return nil
        }
        let now = Date().timeIntervalSince1970
        index.withLock { $0.entries[name]?.lastUse = now }
        utimes(url.path, nil)  // the last use survives a restart
        return entry.response
    }

    /// Writes `response` under `key` if it fits (at most 5% of the capacity), then evicts.
    func write(_ response: CachedURLResponse, key: String) {
        let name = Self.fileName(for: key)
        let bytes = Self.encode(response, key: key)
        guard bytes.count <= capacity / 20 else { return remove(name: name) }
        let temporary = directory.appendingPathComponent(".tmp-\(UUID().uuidString)").path
        let fd = open(temporary, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0o600)
        guard fd >= 0 else { return }
        let written = bytes.withUnsafeBytes { raw -> Bool in
            var offset = 0
            while offset < raw.count {
                let n = Glibc.write(fd, raw.baseAddress! + offset, raw.count - offset)
                if n < 0, errno == EINTR { continue }
                if n <= 0 { return false }
                offset += n
            }
            return true
        }
        let synced = written && fsync(fd) == 0
        close(fd)
        guard synced, rename(temporary, directory.appendingPathComponent(name).path) == 0 else {
            unlink(temporary)
            return
        }
        index.withLock { state in
            if let old = state.entries[name] { state.usage -= old.size }
            state.entries[name] = (bytes.count, Date().timeIntervalSince1970)
            state.usage += bytes.count
        }
        evict()
    }

    /// Removes the entry for `key`.
    func remove(key: String) { remove(name: Self.fileName(for: key)) }

    /// Removes every entry.
    func removeAll() {
        let names = index.withLock { state in
            defer { state = ([:], 0) }
            return Array(state.entries.keys)
        }
        for name in names { unlink(directory.appendingPathComponent(name).path) }
    }

    /// Removes entries whose response arrived at or after `since`.
    func removeEntries(since: Double) {
        let names = index.withLock { Array($0.entries.keys) }
        for name in names {
            let url = directory.appendingPathComponent(name)
            guard let bytes = try? Data(contentsOf: url), let entry = Self.decode(bytes) else { remove(name: name); continue }
            if entry.response.responseTime >= since { remove(name: name) }
        }
    }

    private func remove(name: String) {
        index.withLock { state in
            if let old = state.entries.removeValue(forKey: name) { state.usage -= old.size }
        }
        unlink(directory.appendingPathComponent(name).path)
    }

    /// Removes least-recently-used entries until the usage fits the capacity.
    private func evict() {
        while true {
            let victim = index.withLock { state -> String? in
                guard state.usage > capacity else { return nil }
                return state.entries.min(by: { $0.value.lastUse < $1.value.lastUse })?.key
            }
            guard let victim else { return }
            remove(name: victim)
        }
    }

    /// The file name for `key`: FNV-1a 64 of its UTF-8, in hex (the key is checked on read).
    static func fileName(for key: String) -> String {
        let hex = String(fnv1a(Array(key.utf8)), radix: 16)
        return String(repeating: "0", count: 16 - hex.count) + hex + ".entry"
    }

    static func fnv1a<C: Collection<UInt8>>(_ bytes: C) -> UInt64 {
        var hash: UInt64 = 0xcbf2_9ce4_8422_2325
        for byte in bytes { hash = (hash ^ UInt64(byte)) &* 0x0000_0100_0000_01b3 }
        return hash
    }

    // MARK: Format

    /// An entry's header.
    struct DiskEntryHeader: Codable {
        var key: String
        var url: String
        var status: Int
        var version: String
        var fields: [[String]]
        var requestTime: Double
        var responseTime: Double
        var vary: [String: String]
    }

    static func encode(_ response: CachedURLResponse, key: String) -> [UInt8] {
        let head = response.response
        let header = DiskEntryHeader(key: key, url: head.url?.absoluteString ?? key, status: head.statusCode, version: head.httpVersion,
                                     fields: head.headers.map { [$0.name, $0.value] }, requestTime: response.requestTime,
                                     responseTime: response.responseTime, vary: response.varyValues)
        let json = Array((try? JSONEncoder().encode(header)) ?? Data())
        var bytes = magic
        bytes.reserveCapacity(magic.count + 4 + json.count + 8 + response.data.count + 8)
        append(UInt64(json.count), width: 4, to: &bytes)
        bytes += json
        append(UInt64(response.data.count), width: 8, to: &bytes)
        bytes += response.data
        append(fnv1a(bytes), width: 8, to: &bytes)
        return bytes
    }

    /// Parses an entry file; nil for anything torn or corrupt.
    static func decode(_ data: Data) -> (key: String, response: CachedURLResponse)? {
        let bytes = [UInt8](data)
        guard bytes.count >= magic.count + 4 + 8 + 8, Array(bytes[0..<magic.count]) == magic else { return nil }
        let checksumAt = bytes.count - 8
        guard read(bytes, at: checksumAt, width: 8) == fnv1a(bytes[0..<checksumAt]) else { return nil }
        let headerLength = Int(read(bytes, at: magic.count, width: 4))
        let headerStart = magic.count + 4
        guard headerLength <= maxHeaderSize, headerStart + headerLength + 8 <= checksumAt else { return nil }
        let bodyLength = Int(clamping: read(bytes, at: headerStart + headerLength, width: 8))
        let bodyStart = headerStart + headerLength + 8
        guard bodyLength >= 0, bodyStart + bodyLength == checksumAt,
              let header = try? JSONDecoder().decode(DiskEntryHeader.self, from: Data(bytes[headerStart..<(headerStart + headerLength)])),
              let url = URL(string: header.url), (100...999).contains(header.status), header.fields.allSatisfy({ $0.count == 2 })
        else { return nil }
        var fields = HTTPHeaders()
        for field in header.fields { fields.appendField(name: field[0], value: field[1]) }
        let response = HTTPURLResponse(url: url, statusCode: header.status, httpVersion: header.version, headers: fields)
        return (header.key, CachedURLResponse(response: response, data: Data(bytes[bodyStart..<checksumAt]), userInfo: nil,
                                              storagePolicy: .allowed, requestTime: header.requestTime,
                                              responseTime: header.responseTime, varyValues: header.vary))
    }

    private static func append(_ value: UInt64, width: Int, to bytes: inout [UInt8]) {
        for index in 0..<width { bytes.append(UInt8(truncatingIfNeeded: value >> (8 * index))) }
    }

    private static func read(_ bytes: [UInt8], at offset: Int, width: Int) -> UInt64 {
        var value: UInt64 = 0
        for index in 0..<width { value |= UInt64(bytes[offset + index]) << (8 * index) }
        return value
    }
}
