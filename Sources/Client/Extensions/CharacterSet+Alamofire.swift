#if FullFoundation
public import Foundation
#endif

extension CharacterSet {
    /// The characters Alamofire's encoders leave unescaped in query names and values.
    ///
    /// This is `CharacterSet.urlQueryAllowed` minus the RFC 3986 §2.2 delimiters that would change a query's
    /// meaning: the general delimiters `:#[]@` and the sub-delimiters `!$&'()*+,;=`. What stays is
    /// the unreserved set (`A-Z a-z 0-9 - . _ ~`) plus `/` and `?`, which RFC 3986 §3.4 allows in queries.
    public static let afURLQueryAllowed: CharacterSet = {
        let encodableDelimiters = CharacterSet(charactersIn: ":#[]@" + "!$&'()*+,;=")
        return CharacterSet.urlQueryAllowed.subtracting(encodableDelimiters)
    }()
}

/// Percent-encodes strings, keeping the ASCII characters of an allowed set as they are.
///
/// Every other character, including all non-ASCII ones, becomes `%XX` escapes of its UTF-8 bytes
/// (RFC 3986 §2.1, upper-case hex). Membership is sampled once at creation for the 128 ASCII
/// scalars, so encoding does not consult the set again.
struct PercentEncoder: Sendable {
    private let allowed: [Bool]
    private let space: [UInt8]?

    /// Creates an encoder.
    ///
    /// - Parameters:
    ///   - allowedCharacters: Characters to leave unescaped; only its ASCII members count.
    ///   - spaceReplacement:  What a space becomes, whatever `allowedCharacters` says (`"+"` for
    ///     HTML forms). `nil` (the default) treats a space like any other character.
    init(allowing allowedCharacters: CharacterSet, spaceReplacement: String? = nil) {
        allowed = (0..<128).map { allowedCharacters.contains(Unicode.Scalar(UInt8($0))) }
        space = spaceReplacement.map { Array($0.utf8) }
    }

    /// Returns `string` with every byte outside the allowed ASCII set percent-encoded.
    func encode(_ string: String) -> String {
        let hex: [UInt8] = Array("0123456789ABCDEF".utf8)
        var output: [UInt8] = []
        output.reserveCapacity(string.utf8.count)
        for byte in string.utf8 {
            if byte == UInt8(ascii: " "), let space {
                output.append(contentsOf: space)
            } else if byte < 128 && allowed[Int(byte)] {
                output.append(byte)
            } else {
                output.append(UInt8(ascii: "%"))
                output.append(hex[Int(byte >> 4)])
                output.append(hex[Int(byte & 0x0F)])
            }
        }
        return String(decoding: output, as: UTF8.self)
    }
}
