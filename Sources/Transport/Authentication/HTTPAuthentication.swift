#if FullFoundation
import Foundation
#else
import FoundationEssentials
#endif
import TLS

// Answers to Basic (RFC 7617) and Digest (RFC 7616) challenges, as pure functions of the
// challenge, the credential and the request, so `DigestAuthenticationTests` checks them against
// RFC 7616 §3.9.1's example without a server. Hashes come from OpenSSL's EVP through the TLS
// target's `MessageDigest` (no C type reaches Client). One implementation for both users: Client
// answers an origin's 401 and a forwarding proxy's 407, the CONNECT machine a tunnel's 407.
//
// Supported: Digest with `algorithm` MD5, MD5-sess, SHA-256 and SHA-256-sess, `qop=auth` (or no
// qop, RFC 2069's form), `opaque` echoed, `nc` always 00000001 (each challenge is answered once,
// with a fresh nonce). Not supported: `qop=auth-int` alone, `userhash=true`, SHA-512-256; such a
// challenge is not answered and the 401 is delivered.

/// Basic and Digest answers; see the file comment.
package enum HTTPAuthentication {
    /// `NSURLAuthenticationMethodHTTPBasic`'s value (Client's constant and Foundation's).
    package static let basicMethod = "NSURLAuthenticationMethodHTTPBasic"
    /// `NSURLAuthenticationMethodHTTPDigest`'s value.
    package static let digestMethod = "NSURLAuthenticationMethodHTTPDigest"

    /// An answer to one challenge.
    package struct Answer: Equatable {
        /// The `Authorization` field's value.
        package var authorization: String
        /// The authentication method answered (`HTTPAuthentication.basicMethod` or `…HTTPDigest`).
        package var method: String
        /// The challenge's realm.
        package var realm: String?
    }

    /// The challenge to answer among `challenges`: Digest with SHA-256, then Digest with MD5,
    /// then Basic (RFC 7616 §3.7: the strongest the client supports); `nil` when none is supported.
    package static func strongest(_ challenges: [AuthenticationChallenge]) -> AuthenticationChallenge? {
        ranked(challenges).first
    }

    /// The supported challenges among `challenges`, strongest first (see ``strongest(_:)``); the
    /// server's order among equals. A credential limited to some methods answers the first of
    /// its methods here, never a weaker scheme in place of the one it was given for.
    package static func ranked(_ challenges: [AuthenticationChallenge]) -> [AuthenticationChallenge] {
        func rank(_ challenge: AuthenticationChallenge) -> Int? {
            switch challenge.scheme {
            case "digest":
                guard let algorithm = digestAlgorithm(challenge), supportsQop(challenge), challenge["nonce"] != nil else { return nil }
                return algorithm.hash == .sha256 ? 3 : 2
            case "basic": return 1
            default: return nil
            }
        }
        let supported = challenges.enumerated().compactMap { index, challenge in rank(challenge).map { (challenge, $0, index) } }
        return supported.sorted { $0.1 != $1.1 ? $0.1 > $1.1 : $0.2 < $1.2 }.map(\.0)
    }

    /// The authentication method (`HTTPAuthentication.digestMethod` or `…HTTPBasic`) a
    /// supported challenge asks for.
    package static func method(of challenge: AuthenticationChallenge) -> String {
        challenge.scheme == "digest" ? HTTPAuthentication.digestMethod : HTTPAuthentication.basicMethod
    }

    /// The `Authorization` value answering `challenge`.
    /// - Parameters:
    ///   - challenge: A Basic or Digest challenge (see ``strongest(_:)``).
    ///   - user: The user name.
    ///   - password: The password.
    ///   - method: The request's method.
    ///   - uri: The request target (path and query) as sent.
    ///   - cnonce: The client nonce; random by default.
    /// - Returns: The answer, `nil` for an unsupported challenge.
    package static func answer(_ challenge: AuthenticationChallenge, user: String, password: String, method: String, uri: String,
                       cnonce: String = randomCnonce()) -> Answer? {
        switch challenge.scheme {
        case "basic":
            // RFC 7617 §2: base64 of user-id ":" password, in UTF-8 (§2.1's charset, the only one defined).
            let encoded = Data((user + ":" + password).utf8).base64EncodedString()
            return Answer(authorization: "Basic " + encoded, method: HTTPAuthentication.basicMethod, realm: challenge["realm"])
        case "digest":
            guard let digest = digest(challenge, user: user, password: password, method: method, uri: uri, cnonce: cnonce) else { return nil }
            return Answer(authorization: digest, method: HTTPAuthentication.digestMethod, realm: challenge["realm"])
        default:
            return nil
        }
    }

    /// A Digest algorithm: its hash, and whether it is a `-sess` variant.
    struct DigestAlgorithm: Equatable {
        var hash: MessageDigest.Algorithm
        var session: Bool
        var name: String
    }

    /// The challenge's algorithm (MD5 when absent, RFC 7616 §3.3); `nil` when unsupported.
    static func digestAlgorithm(_ challenge: AuthenticationChallenge) -> DigestAlgorithm? {
        let name = challenge["algorithm"] ?? "MD5"
        switch name.uppercased() {
        case "MD5": return DigestAlgorithm(hash: .md5, session: false, name: name)
        case "MD5-SESS": return DigestAlgorithm(hash: .md5, session: true, name: name)
        case "SHA-256": return DigestAlgorithm(hash: .sha256, session: false, name: name)
        case "SHA-256-SESS": return DigestAlgorithm(hash: .sha256, session: true, name: name)
        default: return nil
        }
    }

    /// Whether the challenge offers `qop=auth` or no qop at all (RFC 2069's form).
    package static func supportsQop(_ challenge: AuthenticationChallenge) -> Bool {
        guard let qop = challenge["qop"] else { return true }
        return qop.split(separator: ",").contains { $0.trimmingSpaces == "auth" }
    }

    /// RFC 7616 §3.4's response, formatted as the `Authorization` value.
    package static func digest(_ challenge: AuthenticationChallenge, user: String, password: String, method: String, uri: String,
                       cnonce: String) -> String? {
        guard let algorithm = digestAlgorithm(challenge), supportsQop(challenge), let nonce = challenge["nonce"] else { return nil }
        let realm = challenge["realm"] ?? ""
        let usesQop = challenge["qop"] != nil
        let nc = "00000001"
        func h(_ text: String) -> String { hex(MessageDigest.hash(algorithm.hash, Array(text.utf8))) }
        var ha1 = h("\(user):\(realm):\(password)")
        if algorithm.session { ha1 = h("\(ha1):\(nonce):\(cnonce)") }
        let ha2 = h("\(method):\(uri)")
        let response = usesQop ? h("\(ha1):\(nonce):\(nc):\(cnonce):auth:\(ha2)") : h("\(ha1):\(nonce):\(ha2)")
        var fields = [
            "username=\(quoted(user))", "realm=\(quoted(realm))", "nonce=\(quoted(nonce))", "uri=\(quoted(uri))",
            "algorithm=\(algorithm.name)", "response=\(quoted(response))",
        ]
        if usesQop { fields += ["qop=auth", "nc=\(nc)", "cnonce=\(quoted(cnonce))"] }
        if let opaque = challenge["opaque"] { fields.append("opaque=\(quoted(opaque))") }
        return "Digest " + fields.joined(separator: ", ")
    }

    /// A quoted-string (RFC 9110 §5.6.4): `"` and `\` escaped. Control bytes cannot occur:
    /// header values with them are refused by Wire when the request is written.
    package static func quoted(_ text: String) -> String {
        var result = "\""
        for character in text {
            if character == "\"" || character == "\\" { result.append("\\") }
            result.append(character)
        }
        return result + "\""
    }

    /// Lowercase hexadecimal.
    package static func hex(_ bytes: [UInt8]) -> String {
        let digits = Array("0123456789abcdef".utf8)
        var out: [UInt8] = []
        out.reserveCapacity(bytes.count * 2)
        for byte in bytes {
            out.append(digits[Int(byte >> 4)])
            out.append(digits[Int(byte & 0x0F)])
        }
        return String(decoding: out, as: UTF8.self)
    }

    /// 16 random bytes in hex: RFC 7616 §3.4's cnonce, unpredictable to the server.
    package static func randomCnonce() -> String {
        var generator = SystemRandomNumberGenerator()
        return hex((0..<16).map { _ in UInt8.random(in: 0...255, using: &generator) })
    }
}

extension Substring {
    /// Without leading and trailing spaces and tabs (no Foundation needed).
    fileprivate var trimmingSpaces: Substring {
        var result = self
        while let first = result.first, first == " " || first == "\t" { result = result.dropFirst() }
        while let last = result.last, last == " " || last == "\t" { result = result.dropLast() }
        return result
    }
}
