// Oracles for `RequestSerializer`: arbitrary strings for the method, target, Host and fields either
// throw the `WireError` a plain reading of the rules predicts, leaving the buffer untouched, or
// produce exactly the expected bytes, in which no CR or LF appears except the framing CRLFs.
//
// Input layout (bytes):
//   [flags] [8-byte little-endian Content-Length, only when framing is contentLength] segments…
//   flags: bits 0-1: framing (0 none, 1 and 3 contentLength, 2 chunked); bit 2: expectContinue
//   segments: separated by 0xFF (never part of UTF-8): method, target, authority, then
//             name, value, name, value, … (a missing value is empty); each decoded as UTF-8 with
//             replacement, so any string the fuzzer can spell reaches the serializer.

import Wire

/// A request head decoded from a fuzz input.
public struct SerializerCase: Sendable {
    /// The head to serialize.
    public var head: RequestHead

    /// Decodes a `serializer` input (layout above).
    public init(_ data: UnsafeRawBufferPointer) {
        let bytes = Array(data)
        let flags = bytes.first ?? 0
        var rest = bytes.dropFirst()
        var framing = RequestFraming.none
        switch flags & 3 {
        case 2:
            framing = .chunked
        case 1, 3:
            var length: UInt64 = 0
            for (index, byte) in rest.prefix(8).enumerated() { length |= UInt64(byte) << (8 * UInt64(index)) }
            framing = .contentLength(Int(truncatingIfNeeded: length))
            rest = rest.dropFirst(8)
        default:
            break
        }
        let segments = rest.split(separator: 0xFF, omittingEmptySubsequences: false).map { String(decoding: $0, as: UTF8.self) }
        func segment(_ index: Int) -> String { index < segments.count ? segments[index] : "" }
        var fields: [(name: String, value: String)] = []
        var index = 3
        while index < segments.count {
            fields.append((segment(index), segment(index + 1)))
            index += 2
        }
        head = RequestHead(
            method: RequestMethod(segment(0)), target: segment(1), authority: segment(2),
            fields: fields, framing: framing, expectContinue: flags & 4 != 0
        )
    }
}

/// Runs every oracle on request heads; traps on the first violation.
public enum SerializerOracles {
    /// Checks one head.
    public static func check(_ input: SerializerCase) {
        let head = input.head
        let prefix: [UInt8] = Array("kept".utf8)
        var buffer = prefix
        let predicted = expectedFailure(head)
        do throws(WireError) {
            try RequestSerializer.serialize(head, into: &buffer)
        } catch {
            require(predicted != nil, "serializer threw \(error) for a valid head \(describe(head))")
            require(error.rule == predicted, "serializer threw \(error.rule), expected \(predicted!) for \(describe(head))")
            require(buffer == prefix, "buffer changed by a failed serialize")
            return
        }
        require(predicted == nil, "serializer accepted \(describe(head)), expected \(predicted!)")
        require(Array(buffer.prefix(prefix.count)) == prefix, "serializer changed bytes before the head")
        let written = Array(buffer.dropFirst(prefix.count))
        require(written == expectedBytes(head), "serialized \(text(written)), expected \(text(expectedBytes(head)))")
        let standalone = Result { () throws(WireError) in try RequestSerializer.serialize(head) }
        require(standalone == .success(written), "serialize(_:) and serialize(_:into:) differ")
        checkLineBreaks(written, head)
        if case .contentLength(let size) = head.framing, size > 0 { checkChunkHeader(size) }
    }

    /// No CR or LF except the CRLF ending each line, one line per component, one empty line last.
    private static func checkLineBreaks(_ bytes: [UInt8], _ head: RequestHead) {
        var lines = 0
        for (i, byte) in bytes.enumerated() {
            if byte == 0x0D { require(i + 1 < bytes.count && bytes[i + 1] == 0x0A, "bare CR at \(i) in \(text(bytes))") }
            if byte == 0x0A {
                require(i > 0 && bytes[i - 1] == 0x0D, "bare LF at \(i) in \(text(bytes))")
                lines += 1
            }
        }
        let expected = 3 + head.fields.count + (head.framing == .none ? 0 : 1) + (head.expectContinue ? 1 : 0)
        require(lines == expected, "\(lines) lines, expected \(expected), in \(text(bytes))")
        require(bytes.suffix(4) == [0x0D, 0x0A, 0x0D, 0x0A], "head does not end with an empty line")
    }

    private static func checkChunkHeader(_ size: Int) {
        let line = RequestSerializer.chunkHeader(size: size).bytes
        require(line == Array(String(size, radix: 16).utf8) + [0x0D, 0x0A], "chunk header for \(size): \(text(line))")
    }

    // MARK: The rules, read plainly

    /// The rule the serializer must throw for `head`, checked in its documented order, or `nil`.
    static func expectedFailure(_ head: RequestHead) -> WireError.Rule? {
        let method = Array(head.method.rawValue.utf8)
        if method.isEmpty || !method.allSatisfy(ReferenceSection.isTokenByte) { return .requestMethod }
        let target = Array(head.target.utf8)
        if target.isEmpty || !target.allSatisfy({ $0 > 0x20 && $0 < 0x7F }) { return .requestTarget }
        if !head.authority.utf8.allSatisfy(ReferenceSection.isValueByte) { return .requestFieldValue }
        for field in head.fields {
            let name = Array(field.name.utf8)
            if name.isEmpty || !name.allSatisfy(ReferenceSection.isTokenByte) { return .requestFieldName }
            if ["content-length", "transfer-encoding", "host"].contains(ReferenceSection.lowercased(name)) { return .requestFramingField }
            if !field.value.utf8.allSatisfy(ReferenceSection.isValueByte) { return .requestFieldValue }
        }
        if case .contentLength(let length) = head.framing, length < 0 { return .requestFramingField }
        return nil
    }

    /// The bytes a valid `head` must serialize to (RFC 9112 §3, §3.2).
    static func expectedBytes(_ head: RequestHead) -> [UInt8] {
        var lines = ["\(head.method.rawValue) \(head.target) HTTP/1.1", "Host: \(head.authority)"]
        lines += head.fields.map { "\($0.name): \($0.value)" }
        switch head.framing {
        case .none: break
        case .contentLength(let length): lines.append("Content-Length: \(length)")
        case .chunked: lines.append("Transfer-Encoding: chunked")
        }
        if head.expectContinue { lines.append("Expect: 100-continue") }
        return Array((lines.map { $0 + "\r\n" }.joined() + "\r\n").utf8)
    }

    private static func describe(_ head: RequestHead) -> String {
        "\(head.method.rawValue.debugDescription) \(head.target.debugDescription) host \(head.authority.debugDescription) "
            + "fields \(head.fields.map { "\($0.name.debugDescription): \($0.value.debugDescription)" }) \(head.framing)"
    }
}
