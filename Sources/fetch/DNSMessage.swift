// DNS wire format for DNS over HTTPS (RFC 8484 §4.1 carries RFC 1035 §4 messages), sans I/O: the
// query curl 7.88 sends (ID 0, RD set, one question, class IN) and the reading of an answer as
// curl-7_88_1 lib/doh.c reads it (doh_decode): ID 0 and RCODE 0 required, every section walked
// with a bounds check before each read, A/AAAA kept (at most 24 addresses, the rest ignored),
// CNAMEs kept as names (at most 4, each at most 255 bytes, 128 labels or pointers followed at
// most), DNAME and other types skipped, answers of another type refused, and the message's
// length matched exactly. Every count comes from the message and every step consumes bytes, so
// a reading ends within the message's length. Errors carry curl's words ("Bad label", ...).
// Differences kept: a CNAME name over 255 bytes is "Bad label" (curl: "Out of memory").

/// Why a DNS message could not be built or read (curl's DOHcode, with its description).
enum DNSMessageError: Error, Equatable, CustomStringConvertible {
    /// An empty label, one over 63 bytes, or a label length with the reserved bits `01`/`10`.
    case badLabel
    /// A read past the end of the message.
    case outOfRange
    /// A name that does not end within 128 labels or pointers.
    case labelLoop
    /// Fewer than the 12 bytes of a header.
    case tooSmall
    /// An A record whose data is not 4 bytes, an AAAA whose data is not 16.
    case rdataLength
    /// Bytes left over after the last section.
    case malformat
    /// A non-zero RCODE (3: NXDOMAIN).
    case badRCode(UInt8)
    /// An answer of a type that was not asked for (nor CNAME or DNAME).
    case unexpectedType(UInt16)
    /// An answer of a class other than IN.
    case unexpectedClass(UInt16)
    /// No address and no CNAME in the answer.
    case noContent
    /// An ID other than the 0 that was sent.
    case badID
    /// A host name whose encoding is over 255 bytes.
    case nameTooLong

    /// curl 7.88's words (lib/doh.c `errors[]`).
    var description: String {
        switch self {
        case .badLabel: "Bad label"
        case .outOfRange: "Out of range"
        case .labelLoop: "Label loop"
        case .tooSmall: "Too small"
        case .rdataLength: "RDATA length"
        case .malformat: "Malformat"
        case .badRCode: "Bad RCODE"
        case .unexpectedType: "Unexpected TYPE"
        case .unexpectedClass: "Unexpected CLASS"
        case .noContent: "No content"
        case .badID: "Bad ID"
        case .nameTooLong: "Name too long"
        }
    }
}

/// What one or more DNS answers held.
struct DNSAnswer: Equatable {
    /// A and AAAA addresses as IP literals, in order (A answers first when read first).
    var addresses: [String] = []
    /// CNAME targets, dotted.
    var cnames: [String] = []
    /// The smallest TTL seen (UInt32.max when none).
    var ttl = UInt32.max
}

/// Building queries and reading answers.
enum DNSMessage {
    /// Record types fetch asks for or recognizes.
    enum RecordType: UInt16 {
        case a = 1
        case ns = 2
        case cname = 5
        case dname = 39
        case aaaa = 28
    }

    /// curl's limits: addresses kept, CNAMEs kept, one CNAME's length, labels/pointers followed.
    static let maxAddresses = 24
    static let maxCNAMEs = 4
    static let maxNameLength = 255
    static let maxNameSteps = 128

    /// The query curl sends for `host` (a trailing dot allowed): ID 0, RD, one question.
    ///
    /// - Throws: ``DNSMessageError/nameTooLong`` (over 255 bytes encoded) or
    ///   ``DNSMessageError/badLabel`` (an empty label or one over 63 bytes).
    static func query(host: String, type: RecordType) throws(DNSMessageError) -> [UInt8] {
        let name = Array(host.utf8)
        guard !name.isEmpty else { throw .badLabel }
        let encodedLength = name.count + (name.last == UInt8(ascii: ".") ? 1 : 2)
        guard encodedLength <= 256 else { throw .nameTooLong }
        var bytes: [UInt8] = [0, 0, 0x01, 0, 0, 1, 0, 0, 0, 0, 0, 0]
        var labels = name.split(separator: UInt8(ascii: "."), omittingEmptySubsequences: false)
        if name.last == UInt8(ascii: ".") { labels.removeLast() }
        for label in labels {
            guard !label.isEmpty, label.count <= 63 else { throw .badLabel }
            bytes.append(UInt8(label.count))
            bytes += label
        }
        bytes.append(0)
        bytes += [UInt8(type.rawValue >> 8), UInt8(type.rawValue & 0xFF), 0, 1]
        return bytes
    }

    /// Reads `message`, the answer to a query of `type`, adding what it holds to `answer`.
    ///
    /// - Throws: ``DNSMessageError``; `answer` may then hold part of the message.
    static func read(_ message: [UInt8], type: RecordType, into answer: inout DNSAnswer) throws(DNSMessageError) {
        guard message.count >= 12 else { throw .tooSmall }
        guard message[0] == 0, message[1] == 0 else { throw .badID }
        let rcode = message[3] & 0x0F
        guard rcode == 0 else { throw .badRCode(rcode) }
        var reader = Reader(bytes: message, index: 12)
        for _ in 0..<reader.u16(at: 4) {
            try reader.skipName()
            try reader.skip(4)
        }
        var lastType: UInt16 = 0
        for _ in 0..<reader.u16(at: 6) {
            try reader.skipName()
            let recordType = try reader.readU16()
            lastType = recordType
            guard recordType == RecordType.cname.rawValue || recordType == RecordType.dname.rawValue || recordType == type.rawValue else {
                throw .unexpectedType(recordType)
            }
            let recordClass = try reader.readU16()
            guard recordClass == 1 else { throw .unexpectedClass(recordClass) }
            answer.ttl = min(answer.ttl, try reader.readU32())
            let length = Int(try reader.readU16())
            let start = reader.index
            try reader.skip(length)
            try store(type: recordType, data: start..<start + length, of: message, into: &answer)
        }
        for count in [reader.u16(at: 8), reader.u16(at: 10)] {
            for _ in 0..<count {
                try reader.skipName()
                try reader.skip(8)
                try reader.skip(Int(try reader.readU16()))
            }
        }
        guard reader.index == message.count else { throw .malformat }
        guard lastType == RecordType.ns.rawValue || !answer.cnames.isEmpty || !answer.addresses.isEmpty else { throw .noContent }
    }

    /// One answer record's data.
    private static func store(type: UInt16, data: Range<Int>, of message: [UInt8], into answer: inout DNSAnswer) throws(DNSMessageError) {
        switch type {
        case RecordType.a.rawValue:
            guard data.count == 4 else { throw .rdataLength }
            if answer.addresses.count < maxAddresses { answer.addresses.append(message[data].map(String.init).joined(separator: ".")) }
        case RecordType.aaaa.rawValue:
            guard data.count == 16 else { throw .rdataLength }
            if answer.addresses.count < maxAddresses { answer.addresses.append(ipv6(Array(message[data]))) }
        case RecordType.cname.rawValue:
            guard answer.cnames.count < maxCNAMEs else { return }
            answer.cnames.append(try name(at: data.lowerBound, in: message))
        default:
            return  // DNAME: its synthesized CNAME is what counts; anything else is skipped
        }
    }

    /// The name at `start`, pointers followed (at most ``maxNameSteps`` labels and pointers).
    static func name(at start: Int, in message: [UInt8]) throws(DNSMessageError) -> String {
        var index = start
        var labels: [String] = []
        var length = 0
        for _ in 0..<maxNameSteps {
            guard index < message.count else { throw .outOfRange }
            let byte = message[index]
            if byte & 0xC0 == 0xC0 {
                guard index + 1 < message.count else { throw .outOfRange }
                index = Int(byte & 0x3F) << 8 | Int(message[index + 1])
                continue
            }
            guard byte & 0xC0 == 0 else { throw .badLabel }
            if byte == 0 { return labels.joined(separator: ".") }
            let label = index + 1..<index + 1 + Int(byte)
            guard label.upperBound <= message.count else { throw .badLabel }
            length += (labels.isEmpty ? 0 : 1) + label.count
            guard length <= maxNameLength else { throw .badLabel }
            labels.append(String(decoding: message[label], as: UTF8.self))
            index = label.upperBound
        }
        throw .labelLoop
    }

    /// An IPv6 address's text (RFC 5952: lower case, the longest run of zero groups as `::`).
    static func ipv6(_ bytes: [UInt8]) -> String {
        let groups = (0..<8).map { Int(bytes[$0 * 2]) << 8 | Int(bytes[$0 * 2 + 1]) }
        var best = (start: -1, count: 0)
        var run = (start: -1, count: 0)
        for (index, group) in groups.enumerated() {
            if group == 0 {
                run = run.start < 0 ? (index, 1) : (run.start, run.count + 1)
                if run.count > best.count { best = run }
            } else {
                run = (-1, 0)
            }
        }
        let hex = groups.map { String($0, radix: 16) }
        guard best.count >= 2 else { return hex.joined(separator: ":") }
        return hex[..<best.start].joined(separator: ":") + "::" + hex[(best.start + best.count)...].joined(separator: ":")
    }

    /// A cursor over a message; every read checks the length first.
    private struct Reader {
        let bytes: [UInt8]
        var index: Int

        func u16(at offset: Int) -> UInt16 { UInt16(bytes[offset]) << 8 | UInt16(bytes[offset + 1]) }

        mutating func skip(_ count: Int) throws(DNSMessageError) {
            guard bytes.count - index >= count else { throw .outOfRange }
            index += count
        }

        mutating func readU16() throws(DNSMessageError) -> UInt16 {
            guard bytes.count - index >= 2 else { throw .outOfRange }
            defer { index += 2 }
            return u16(at: index)
        }

        mutating func readU32() throws(DNSMessageError) -> UInt32 {
            let high = UInt32(try readU16())
            return high << 16 | UInt32(try readU16())
        }

        /// curl's skipqname: labels up to the root, or up to and including a pointer.
        mutating func skipName() throws(DNSMessageError) {
            while true {
                guard index < bytes.count else { throw .outOfRange }
                let length = bytes[index]
                if length & 0xC0 == 0xC0 {
                    try skip(2)
                    return
                }
                guard length & 0xC0 == 0 else { throw .badLabel }
                try skip(1 + Int(length))
                if length == 0 { return }
            }
        }
    }
}
