internal import CDirent
internal import COpenSSL
internal import Glibc

/// The only Swift code in the TLS module that reads memory a C library hands back (issue 18's
/// audit; the table is in Sources/TLS/README.md). Each accessor takes the pointer as the type the
/// library documents for it and returns Swift values; unions are read in COpenSSL/shim.h, by kind.
/// Everything returned is a copy: no pointer into C memory outlives the call.
enum OpenSSLAccessors {
    // MARK: ASN1_STRING

    /// The content octets of an ASN1_STRING (IA5String, OCTET STRING, INTEGER magnitude, ...),
    /// through ASN1_STRING_length and ASN1_STRING_get0_data.
    static func bytes(of string: UnsafePointer<ASN1_STRING>) -> [UInt8] {
        let length = Int(ASN1_STRING_length(string))
        guard length > 0, let data = ASN1_STRING_get0_data(string) else { return [] }
        return Array(UnsafeBufferPointer(start: data, count: length))
    }

    // MARK: GENERAL_NAME

    /// One GeneralName (RFC 5280 section 4.2.1.6), read by its kind through the typed accessors
    /// of COpenSSL/shim.h: dNSName, rfc822Name and uniformResourceIdentifier as IA5String text,
    /// iPAddress as octets; otherName, x400Address, directoryName, ediPartyName and registeredID
    /// carry payloads that are not strings and are never touched, only their tag is kept.
    /// Used for subjectAltName entries and name-constraint subtrees alike.
    static func generalName(_ name: UnsafePointer<GENERAL_NAME>) -> SubjectAlternativeName {
        let kind = lariat_GENERAL_NAME_kind(name)
        switch kind {
        case GEN_DNS, GEN_EMAIL, GEN_URI:
            guard let string = lariat_GENERAL_NAME_get0_ia5(name) else { return .other(tag: kind) }
            let text = String(decoding: bytes(of: string), as: UTF8.self)
            return kind == GEN_DNS ? .dnsName(text) : kind == GEN_EMAIL ? .email(text) : .uri(text)
        case GEN_IPADD:
            guard let octets = lariat_GENERAL_NAME_get0_iPAddress(name) else { return .other(tag: kind) }
            return .ipAddress(bytes(of: octets))
        default:
            return .other(tag: kind)
        }
    }

    /// An X.500 DirectoryString (PrintableString, UTF8String, BMPString, UniversalString, T61String,
    /// IA5String) as text: ASN1_STRING_to_UTF8 converts by the string's tag, so a BMPString
    /// `localhost` is `localhost`, not its UTF-16 bytes. `nil` when the content does not convert.
    static func text(of string: UnsafePointer<ASN1_STRING>) -> String? {
        var output: UnsafeMutablePointer<UInt8>? = nil
        let length = ASN1_STRING_to_UTF8(&output, string)
        guard length >= 0, let output else {
            _ = OpenSSLError.drain()
            return nil
        }
        defer { lariat_OPENSSL_free(output) }
        return String(decoding: UnsafeBufferPointer(start: output, count: Int(length)), as: UTF8.self)
    }

    // MARK: X509_NAME

    /// The commonName attributes of an X509_NAME in order, each as text (``text(of:)``). A value
    /// that does not convert (a BMPString of odd length, bad UTF-8) is kept as its content octets
    /// decoded leniently, so a rule that compares every CN still sees it (and it matches nothing).
    static func commonNames(of name: OpaquePointer?) -> [String] {
        guard let name else { return [] }
        var names: [String] = []
        var index = X509_NAME_get_index_by_NID(name, NID_commonName, -1)
        while index >= 0 {
            if let entry = X509_NAME_get_entry(name, index), let data = X509_NAME_ENTRY_get_data(entry) {
                names.append(text(of: data) ?? String(decoding: bytes(of: data), as: UTF8.self))
            }
            index = X509_NAME_get_index_by_NID(name, NID_commonName, index)
        }
        return names
    }

    // MARK: EVP_PKEY by id

    /// What a public key is, by EVP_PKEY_get_base_id; sizes and curves come from the EVP
    /// accessors for that id (EVP_PKEY_get_bits, EVP_PKEY_get_group_name), never from the key's
    /// union member.
    enum KeyKind: Equatable {
        case rsa(bits: Int), dsa, ec(curve: String?), other(String)
    }

    /// The kind of `pkey`.
    static func keyKind(_ pkey: OpaquePointer) -> KeyKind {
        switch EVP_PKEY_get_base_id(pkey) {
        case EVP_PKEY_RSA:
            return .rsa(bits: Int(EVP_PKEY_get_bits(pkey)))
        case EVP_PKEY_DSA:
            return .dsa
        case EVP_PKEY_EC:
            var buffer = [CChar](repeating: 0, count: 64)
            var length = 0
            guard EVP_PKEY_get_group_name(pkey, &buffer, buffer.count, &length) == 1, length < buffer.count else {
                _ = OpenSSLError.drain()
                return .ec(curve: nil)
            }
            return .ec(curve: String(decoding: buffer.prefix(length).map { UInt8(bitPattern: $0) }, as: UTF8.self))
        case let other:
            return .other(shortName(nid: other) ?? "nid \(other)")
        }
    }

    /// OBJ_nid2sn: a `const char *` into libcrypto's static OID table, or NULL.
    static func shortName(nid: Int32) -> String? { OBJ_nid2sn(nid).map { String(cString: $0) } }

    // MARK: Borrowed byte runs

    /// A copy of `count` bytes OpenSSL lends (SSL_get0_alpn_selected, the stapled OCSP response);
    /// `nil` when there are none.
    static func copy(_ data: UnsafePointer<UInt8>?, count: Int) -> [UInt8]? {
        guard let data, count > 0 else { return nil }
        return Array(UnsafeBufferPointer(start: data, count: count))
    }

    /// Everything written to a memory BIO (BIO_get_mem_data: `char *` and a length).
    static func memoryBIOContents(_ bio: OpaquePointer) -> [UInt8] {
        var data: UnsafeMutablePointer<CChar>? = nil
        let length = lariat_BIO_get_mem_data(bio, &data)
        guard length > 0, let data else { return [] }
        return UnsafeBufferPointer(start: data, count: length).map { UInt8(bitPattern: $0) }
    }

    /// A NUL-terminated `const char *` (ERR_get_error_all's data with ERR_TXT_STRING, getenv).
    static func string(_ cString: UnsafePointer<CChar>?) -> String? { cString.map { String(cString: $0) } }

    /// A copy of `bytes` in OPENSSL_malloc memory, typed `unsigned char *` by the shim, for the
    /// calls that take ownership of such a buffer (SSL_set_tlsext_status_ocsp_resp).
    static func openSSLCopy(_ bytes: [UInt8]) -> UnsafeMutablePointer<UInt8>? {
        bytes.withUnsafeBytes { lariat_OPENSSL_memdup($0.baseAddress, $0.count) }
    }

    // MARK: Our own objects behind a `void *`

    /// The object `pointer` was made from with `Unmanaged.passUnretained(object).toOpaque()`
    /// (SSL ex_data, a callback's argument): only pointers we stored ourselves come back here.
    static func object<T: AnyObject>(_ pointer: UnsafeMutableRawPointer?, as type: T.Type) -> T? {
        pointer.map { Unmanaged<T>.fromOpaque($0).takeUnretainedValue() }
    }

    /// The NUL-terminated password ``PrivateKey/withPasswordCallback(_:_:)`` passed as the
    /// callback's `void *` argument: a `[CChar]` buffer, so the memory is bound to CChar already.
    static func passwordArgument(_ argument: UnsafeMutableRawPointer) -> UnsafePointer<CChar> {
        UnsafePointer(argument.assumingMemoryBound(to: CChar.self))
    }

    // MARK: libc

    /// A directory entry's name (`d_name`, a NUL-terminated `char[256]` inside `struct dirent`).
    static func name(of entry: UnsafePointer<dirent>) -> String {
        // In place, up to the NUL, through the shared C accessor (CDirent): glibc's records are
        // only as long as their name, so copying the 256-byte d_name tuple could read past the
        // last record of readdir's buffer (seen by AddressSanitizer over a 676-file directory).
        String(cString: lariat_dirent_name(entry))
    }
}
