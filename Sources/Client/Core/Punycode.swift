// Punycode (RFC 3492): the Bootstring encoding IDNA uses to carry a Unicode label in the ASCII
// letters, digits and hyphen DNS accepts. Pure functions over scalars; no ICU.

/// RFC 3492's Punycode, without the `xn--` prefix (that is IDNA's, see `HostName`).
enum Punycode {
    // RFC 3492 §5 parameter values.
    private static let base = 36
    private static let tMin = 1
    private static let tMax = 26
    private static let skew = 38
    private static let damp = 700
    private static let initialBias = 72
    private static let initialN = 0x80
    /// Labels are at most 63 bytes; this bounds the work an absurd input can cause.
    private static let maximumLength = 1_000

    /// Encodes `scalars` (RFC 3492 §6.3). Basic (ASCII) code points are copied first, in order,
    /// with their case kept; a `-` separates them from the deltas when there are any.
    ///
    /// - Parameter scalars: The label's code points.
    /// - Returns: The encoded label, or `nil` if it is over 1 000 scalars or a delta overflows.
    static func encode(_ scalars: [Unicode.Scalar]) -> String? {
        guard scalars.count <= maximumLength else { return nil }
        var output: [UInt8] = scalars.filter(\.isASCII).map { UInt8($0.value) }
        let basicCount = output.count
        if basicCount > 0 { output.append(UInt8(ascii: "-")) }
        var n = initialN
        var delta = 0
        var bias = initialBias
        var handled = basicCount
        while handled < scalars.count {
            // The smallest code point not yet handled.
            let next = scalars.lazy.map { Int($0.value) }.filter { $0 >= n }.min()!
            let (step, overflow) = (next - n).multipliedReportingOverflow(by: handled + 1)
            guard !overflow, delta <= Int(Int32.max) - step else { return nil }
            delta += step
            n = next
            for scalar in scalars {
                let value = Int(scalar.value)
                if value < n { delta += 1 }
                guard value == n else { continue }
                var q = delta
                var k = base
                while true {
                    let t = threshold(k, bias: bias)
                    if q < t { break }
                    output.append(digit(t + (q - t) % (base - t)))
                    q = (q - t) / (base - t)
                    k += base
                }
                output.append(digit(q))
                bias = adapt(delta, count: handled + 1, first: handled == basicCount)
                delta = 0
                handled += 1
            }
            delta += 1
            n += 1
        }
        return String(decoding: output, as: UTF8.self)
    }

    /// Decodes `label` (RFC 3492 §6.2).
    ///
    /// - Parameter label: Encoded text, without `xn--`.
    /// - Returns: The code points, or `nil` if the text is not valid Punycode (a non-ASCII byte
    ///   before the last `-`, a character that is not a base-36 digit, a truncated number, an
    ///   overflow, or a result that is not a Unicode scalar).
    static func decode(_ label: String) -> [Unicode.Scalar]? {
        let bytes = Array(label.utf8)
        guard bytes.count <= maximumLength else { return nil }
        var output: [Unicode.Scalar] = []
        var position = 0
        if let separator = bytes.lastIndex(of: UInt8(ascii: "-")) {
            for byte in bytes[..<separator] {
                guard byte < 0x80 else { return nil }
                output.append(Unicode.Scalar(byte))
            }
            position = separator + 1
        }
        var n = initialN
        var i = 0
        var bias = initialBias
        while position < bytes.count {
            let oldI = i
            var weight = 1
            var k = base
            while true {
                guard position < bytes.count, let value = digitValue(bytes[position]) else { return nil }
                position += 1
                let (scaled, overflow) = value.multipliedReportingOverflow(by: weight)
                guard !overflow, i <= Int(Int32.max) - scaled else { return nil }
                i += scaled
                let t = threshold(k, bias: bias)
                if value < t { break }
                let (nextWeight, overflow2) = weight.multipliedReportingOverflow(by: base - t)
                guard !overflow2, nextWeight <= Int(Int32.max) else { return nil }
                weight = nextWeight
                k += base
            }
            let count = output.count + 1
            bias = adapt(i - oldI, count: count, first: oldI == 0)
            guard n <= Int(Int32.max) - i / count else { return nil }
            n += i / count
            i %= count
            guard let scalar = Unicode.Scalar(UInt32(clamping: n)), n >= initialN else { return nil }
            output.insert(scalar, at: i)
            i += 1
        }
        return output
    }

    /// RFC 3492 §6.1's bias adaptation.
    private static func adapt(_ delta: Int, count: Int, first: Bool) -> Int {
        var delta = first ? delta / damp : delta / 2
        delta += delta / count
        var k = 0
        while delta > ((base - tMin) * tMax) / 2 {
            delta /= base - tMin
            k += base
        }
        return k + (base - tMin + 1) * delta / (delta + skew)
    }

    /// The threshold `t` for digit position `k`, clamped to `tMin...tMax`.
    private static func threshold(_ k: Int, bias: Int) -> Int {
        min(max(k - bias, tMin), tMax)
    }

    /// The lowercase ASCII digit for `value` (0-25: a-z, 26-35: 0-9).
    private static func digit(_ value: Int) -> UInt8 {
        value < 26 ? UInt8(ascii: "a") + UInt8(value) : UInt8(ascii: "0") + UInt8(value - 26)
    }

    /// The value of a base-36 digit, either case; `nil` for any other byte.
    private static func digitValue(_ byte: UInt8) -> Int? {
        switch byte {
        case UInt8(ascii: "a")...UInt8(ascii: "z"): Int(byte - UInt8(ascii: "a"))
        case UInt8(ascii: "A")...UInt8(ascii: "Z"): Int(byte - UInt8(ascii: "A"))
        case UInt8(ascii: "0")...UInt8(ascii: "9"): Int(byte - UInt8(ascii: "0")) + 26
        default: nil
        }
    }
}
