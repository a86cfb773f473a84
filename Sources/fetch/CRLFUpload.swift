// --crlf: curl 7.88 turns every LF of an upload (-T) into CRLF as it reads the file (its read
// callback's conversion, lib/transfer.c), a CR already before the LF included (`\r\n` goes out
// as `\r\r\n`). The bodies of -d and its kin are not converted (curl sends them from memory).
//
// One difference, on purpose: curl announces the file's own size as Content-Length and then
// sends the longer, converted bytes, which a server reads as a short body followed by garbage;
// fetch announces the converted length (the file is read once beforehand to count its LFs).
import Transport
#if canImport(Glibc)
import Glibc
#endif

/// `-T`'s file (or standard input, `-`) with each LF sent as CRLF.
///
/// A class, as BodySource requires; one connection's loop reads it at a time.
final class CRLFBodySource: BodySource {
    private let path: String
    private var descriptor: Int32 = -1
    /// Converted bytes not handed out yet, from `start`.
    private var pending: [UInt8] = []
    private var start = 0

    /// The source for `path` (`-`: standard input).
    init(path: String) { self.path = path }

    func open() {
        descriptor = path == "-" ? dup(0) : Glibc.open(path, O_RDONLY | O_CLOEXEC)
    }

    func read(_ buffer: UnsafeMutablePointer<UInt8>, maxLength len: Int) -> Int {
        guard descriptor >= 0 else { return -1 }
        if start == pending.count {
            var raw = [UInt8](repeating: 0, count: 16 * 1024)
            let count = Self.readSome(descriptor, into: &raw)
            guard count > 0 else { return count }
            pending = Self.converted(raw[..<count])
            start = 0
        }
        let count = min(len, pending.count - start)
        pending.withUnsafeBufferPointer { bytes in
            guard let base = bytes.baseAddress else { return }
            buffer.update(from: base + start, count: count)
        }
        start += count
        return count
    }

    func close() {
        if descriptor >= 0 { _ = Glibc.close(descriptor) }
        descriptor = -1
    }

    /// `bytes` with each LF preceded by a CR.
    static func converted(_ bytes: ArraySlice<UInt8>) -> [UInt8] {
        var out: [UInt8] = []
        out.reserveCapacity(bytes.count + bytes.count / 8)
        for byte in bytes {
            if byte == 10 { out.append(13) }
            out.append(byte)
        }
        return out
    }

    /// The converted length of the regular file at `path`, or `nil` when it cannot be read.
    static func convertedLength(ofFileAt path: String) -> Int? {
        let descriptor = Glibc.open(path, O_RDONLY | O_CLOEXEC)
        guard descriptor >= 0 else { return nil }
        defer { _ = Glibc.close(descriptor) }
        var raw = [UInt8](repeating: 0, count: 64 * 1024)
        var total = 0
        while true {
            let count = readSome(descriptor, into: &raw)
            if count < 0 { return nil }
            if count == 0 { return total }
            total += count + raw[..<count].reduce(0) { $0 + ($1 == 10 ? 1 : 0) }
        }
    }

    /// One read(2) into `raw`, retried on EINTR: the count, 0 at the end, -1 on an error.
    private static func readSome(_ descriptor: Int32, into raw: inout [UInt8]) -> Int {
        while true {
            let count = raw.withUnsafeMutableBytes { Glibc.read(descriptor, $0.baseAddress, $0.count) }
            if count >= 0 || errno != EINTR { return count < 0 ? -1 : count }
        }
    }
}
