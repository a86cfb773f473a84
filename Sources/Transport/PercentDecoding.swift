// Percent-decoding (RFC 3986 §2.1) to bytes: a proxy URL's credentials (Proxy/ProxyServer.swift)
// and a response's RFC 8187 `filename*` (Client's HTTPURLResponse) are both written this way.

/// Decodes `%XX` escapes; `nil` if an escape is malformed.
package func percentDecodedBytes(_ string: Substring) -> [UInt8]? {
    var bytes: [UInt8] = []
    var iterator = string.utf8.makeIterator()
    while let byte = iterator.next() {
        guard byte == UInt8(ascii: "%") else {
            bytes.append(byte)
            continue
        }
        guard let high = iterator.next().flatMap(hexValue), let low = iterator.next().flatMap(hexValue) else { return nil }
        bytes.append(high << 4 | low)
    }
    return bytes
}

private func hexValue(_ byte: UInt8) -> UInt8? {
    switch byte {
    case UInt8(ascii: "0")...UInt8(ascii: "9"): byte - UInt8(ascii: "0")
    case UInt8(ascii: "a")...UInt8(ascii: "f"): byte - UInt8(ascii: "a") + 10
    case UInt8(ascii: "A")...UInt8(ascii: "F"): byte - UInt8(ascii: "A") + 10
    default: nil
    }
}
