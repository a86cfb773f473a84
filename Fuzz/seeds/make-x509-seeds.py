#!/usr/bin/env python3
"""Writes the seed corpora of the X.509 fuzz targets and the harness's fixed anchor.

    python3 Fuzz/seeds/make-x509-seeds.py      (needs pyca/cryptography >= 44; Debian's CA bundle)

Outputs (relative to Fuzz/):
  corpus/certificate/  single DER certificates: a sample of Debian's CA bundle, test-style
                       leaves (localhost, 127.0.0.1, ::1) and every GeneralName shape (otherName
                       UPN/INTEGER/SEQUENCE, dirName, RID, x400, ediParty, IP of 5 and 17 bytes),
                       name constraints, AIA, policies, all issued by the fixed intermediate;
  corpus/chain/        concatenated DER chains: leaf+intermediate(+root), reversed, cross-signed
                       twins, an issuer loop, 40 certificates;
  corpus/crl/          DER CRLs issued by the fixed root and intermediate;
  corpus/ocsp/         DER OCSP responses for the fixed leaf (good, revoked, unknown, delegated
                       responder, unsuccessful statuses);
  corpus/pkcs12/       PKCS#12 bundles (no password, password "fuzz", without MAC);
  corpus/pem/          client identity files (certificate + key PEM, chain + key);
  Sources/X509FuzzHarness/Anchors.swift   the fixed root, intermediate and leaf as DER.

Keys are derived from fixed scalars and ECDSA signatures are deterministic (RFC 6979), so a
re-run writes the same bytes except for the RSA-keyed PKCS#12 bundle.
"""
import datetime
import os
import re

from cryptography import x509
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import ec, rsa
from cryptography.hazmat.primitives.serialization import pkcs12
from cryptography.x509.ocsp import OCSPCertStatus, OCSPResponderEncoding, OCSPResponseBuilder, OCSPResponseStatus
from cryptography.x509.oid import AuthorityInformationAccessOID, ExtendedKeyUsageOID, ExtensionOID, NameOID

HERE = os.path.dirname(os.path.abspath(__file__))
FUZZ = os.path.dirname(HERE)
NOT_BEFORE = datetime.datetime(2025, 1, 1, tzinfo=datetime.timezone.utc)
NOT_AFTER = datetime.datetime(2035, 1, 1, tzinfo=datetime.timezone.utc)
# The harness verifies at 2026-06-01T00:00:00Z (Anchors.swift: verificationTime).
VERIFY_AT = int(datetime.datetime(2026, 6, 1, tzinfo=datetime.timezone.utc).timestamp())


def key(n):
    return ec.derive_private_key(0x1A2B3C4D5E6F + n * 7919, ec.SECP256R1())


def name(cn, o="Lariat Fuzz"):
    return x509.Name([x509.NameAttribute(NameOID.ORGANIZATION_NAME, o), x509.NameAttribute(NameOID.COMMON_NAME, cn)])


def ski(k):
    return x509.SubjectKeyIdentifier.from_public_key(k.public_key())


def aki(k):
    return x509.AuthorityKeyIdentifier.from_issuer_public_key(k.public_key())


def build(subject, subject_key, issuer, issuer_key, serial, ca=False, extensions=(), path_length=None,
          eku=(ExtendedKeyUsageOID.SERVER_AUTH, ExtendedKeyUsageOID.CLIENT_AUTH)):
    b = (x509.CertificateBuilder().subject_name(subject).issuer_name(issuer).public_key(subject_key.public_key())
         .serial_number(serial).not_valid_before(NOT_BEFORE).not_valid_after(NOT_AFTER))
    if ca:
        b = b.add_extension(x509.BasicConstraints(ca=True, path_length=path_length), critical=True)
        b = b.add_extension(x509.KeyUsage(False, False, False, False, False, True, True, False, False), critical=True)
    else:
        b = b.add_extension(x509.BasicConstraints(ca=False, path_length=None), critical=True)
        b = b.add_extension(x509.KeyUsage(True, False, False, False, False, False, False, False, False), critical=True)
        b = b.add_extension(x509.ExtendedKeyUsage(list(eku)), critical=False)
    b = b.add_extension(ski(subject_key), critical=False)
    if issuer_key is not subject_key:
        b = b.add_extension(aki(issuer_key), critical=False)
    for ext, critical in extensions:
        b = b.add_extension(ext, critical=critical)
    return b.sign(issuer_key, hashes.SHA256(), ecdsa_deterministic=True)


def der(cert):
    return cert.public_bytes(serialization.Encoding.DER)


# MARK: DER by hand for the GeneralName kinds cryptography does not write.

def tlv(tag, content):
    n = len(content)
    if n < 0x80:
        length = bytes([n])
    else:
        raw = n.to_bytes((n.bit_length() + 7) // 8, "big")
        length = bytes([0x80 | len(raw)]) + raw
    return bytes([tag]) + length + content


def oid(dotted):
    parts = [int(p) for p in dotted.split(".")]
    body = bytes([parts[0] * 40 + parts[1]])
    for p in parts[2:]:
        chunk = [p & 0x7F]
        p >>= 7
        while p:
            chunk.insert(0, 0x80 | (p & 0x7F))
            p >>= 7
        body += bytes(chunk)
    return tlv(0x06, body)


def other_name(type_oid, value):
    return tlv(0xA0, oid(type_oid) + tlv(0xA0, value))


UTF8 = lambda s: tlv(0x0C, s.encode())
DIRNAME = tlv(0x30, tlv(0x31, tlv(0x30, oid("2.5.4.3") + UTF8("directory name"))))
KINDS = {
    "othername-upn": other_name("1.3.6.1.4.1.311.20.2.3", UTF8("user@example.com")),
    "othername-integer": other_name("1.2.3.4", tlv(0x02, b"\x30\x39")),
    "othername-sequence": other_name("1.2.3.5", tlv(0x30, UTF8("first") + tlv(0x02, b"\x07"))),
    "dirname": tlv(0xA4, DIRNAME),
    "rid": tlv(0x88, oid("1.2.3.4.5")[2:]),
    "x400": tlv(0xA3, tlv(0x30, b"")),
    "ediparty": tlv(0xA5, tlv(0xA0, UTF8("assigner")) + tlv(0xA1, UTF8("party"))),
    "ip5": tlv(0x87, bytes([127, 0, 0, 1, 9])),
    "ip17": tlv(0x87, bytes(15) + b"\x01\x01"),
    "email-uri": tlv(0x81, b"a@b.example") + tlv(0x86, b"https://u.example/x"),
    "ip4-ip6": tlv(0x87, bytes([127, 0, 0, 1])) + tlv(0x87, bytes(15) + b"\x01"),
    "dns-nul": tlv(0x82, b"good.example\x00.evil.example"),
    "wildcards": tlv(0x82, b"*.example.com") + tlv(0x82, b"*.s3.amazonaws.com") + tlv(0x82, b"f*o.example") + tlv(0x82, b"*.com"),
}
LOCALHOST = tlv(0x82, b"localhost")


def raw_san(entries, critical=False):
    return x509.UnrecognizedExtension(ExtensionOID.SUBJECT_ALTERNATIVE_NAME, tlv(0x30, entries)), critical


def write(directory, filename, data):
    path = os.path.join(FUZZ, directory)
    os.makedirs(path, exist_ok=True)
    with open(os.path.join(path, filename), "wb") as f:
        f.write(data)


def swift_bytes(data):
    lines = []
    for i in range(0, len(data), 24):
        lines.append("        " + ", ".join("0x%02x" % b for b in data[i:i + 24]) + ",")
    return "\n".join(lines)


def main():
    root_key, inter_key, leaf_key = key(1), key(2), key(3)
    root = build(name("Fuzz Root"), root_key, name("Fuzz Root"), root_key, 1, ca=True)
    inter = build(name("Fuzz Intermediate"), inter_key, root.subject, root_key, 2, ca=True, path_length=0)
    leaf_san = x509.SubjectAlternativeName([x509.DNSName("localhost"), x509.DNSName("*.fuzz.example"),
                                            x509.IPAddress(__import__("ipaddress").ip_address("127.0.0.1")),
                                            x509.IPAddress(__import__("ipaddress").ip_address("::1"))])
    leaf = build(name("localhost"), leaf_key, inter.subject, inter_key, 3, extensions=[(leaf_san, False)])

    # MARK: certificate
    bundle = open("/etc/ssl/certs/ca-certificates.crt", "rb").read()
    blocks = re.findall(rb"-----BEGIN CERTIFICATE-----.*?-----END CERTIFICATE-----", bundle, re.S)
    step = max(1, len(blocks) // 50)
    for i, block in enumerate(blocks[::step][:50]):
        write("corpus/certificate", "ca-bundle-%02d.der" % i, der(x509.load_pem_x509_certificate(block)))
    write("corpus/certificate", "test-root.der", der(root))
    write("corpus/certificate", "test-intermediate.der", der(inter))
    write("corpus/certificate", "test-leaf.der", der(leaf))
    serial = 100
    for kind, entry in KINDS.items():
        serial += 1
        cert = build(name("kind " + kind), key(10 + serial), inter.subject, inter_key, serial,
                     extensions=[raw_san(LOCALHOST + entry)])
        write("corpus/certificate", "san-%s.der" % kind, der(cert))
    # Leaves without a SAN, with a critical SAN and an empty subject, with a CN only.
    write("corpus/certificate", "cn-only.der", der(build(name("localhost"), key(40), inter.subject, inter_key, 40)))
    empty = build(x509.Name([]), key(41), inter.subject, inter_key, 41, extensions=[raw_san(LOCALHOST, critical=True)])
    write("corpus/certificate", "empty-subject-critical-san.der", der(empty))
    # CA extensions: name constraints of each kind, AIA, policies.
    import ipaddress
    nc = x509.NameConstraints(
        permitted_subtrees=[x509.DNSName("example.com"), x509.IPAddress(ipaddress.ip_network("10.0.0.0/8")),
                            x509.RFC822Name("example.com"), x509.DirectoryName(name("dir")),
                            x509.OtherName(x509.ObjectIdentifier("1.3.6.1.4.1.311.20.2.3"), UTF8("example.com")),
                            x509.UniformResourceIdentifier(".example.com")],
        excluded_subtrees=[x509.DNSName("bad.example.com"), x509.IPAddress(ipaddress.ip_network("::/0"))])
    aia = x509.AuthorityInformationAccess([
        x509.AccessDescription(AuthorityInformationAccessOID.OCSP, x509.UniformResourceIdentifier("http://ocsp.example/")),
        x509.AccessDescription(AuthorityInformationAccessOID.CA_ISSUERS, x509.UniformResourceIdentifier("http://ca.example/i.der"))])
    policies = x509.CertificatePolicies([
        x509.PolicyInformation(x509.ObjectIdentifier("2.23.140.1.2.1"), ["https://cps.example/"]),
        x509.PolicyInformation(x509.ObjectIdentifier("2.5.29.32.0"), [x509.UserNotice(x509.NoticeReference("org", [1, 2]), "text")])])
    ca_extensions = [(nc, True), (aia, False), (policies, False), (x509.PolicyConstraints(0, 1), True),
                     (x509.InhibitAnyPolicy(0), True),
                     (x509.CRLDistributionPoints([x509.DistributionPoint([x509.UniformResourceIdentifier("http://crl.example/c.crl")], None, None, None)]), False)]
    constrained = build(name("Fuzz Constrained CA"), key(50), root.subject, root_key, 50, ca=True, extensions=ca_extensions)
    write("corpus/certificate", "ca-constraints-aia-policies.der", der(constrained))
    constrained_leaf = build(name("www.example.com"), key(51), constrained.subject, key(50), 51,
                             extensions=[raw_san(tlv(0x82, b"www.example.com") + KINDS["othername-upn"] + KINDS["dirname"]), (aia, False), (policies, False)])
    write("corpus/certificate", "leaf-under-constraints.der", der(constrained_leaf))

    # MARK: chain
    write("corpus/chain", "leaf-intermediate.der", der(leaf) + der(inter))
    write("corpus/chain", "leaf-intermediate-root.der", der(leaf) + der(inter) + der(root))
    write("corpus/chain", "leaf-root-intermediate.der", der(leaf) + der(root) + der(inter))
    write("corpus/chain", "leaf-only.der", der(leaf))
    # A cross-signed twin of the intermediate (same name and key, issued by another root) and a
    # self-signed twin of the root with a different key (CVE-2024-0567's shape).
    other_root_key = key(60)
    other_root = build(name("Fuzz Other Root"), other_root_key, name("Fuzz Other Root"), other_root_key, 60, ca=True)
    cross = build(name("Fuzz Intermediate"), inter_key, other_root.subject, other_root_key, 61, ca=True)
    fake_root = build(name("Fuzz Root"), key(62), name("Fuzz Root"), key(62), 62, ca=True)
    write("corpus/chain", "cross-signed.der", der(leaf) + der(cross) + der(other_root) + der(inter))
    write("corpus/chain", "look-alike-root.der", der(leaf) + der(inter) + der(fake_root))
    # An issuer loop: A issued by B, B issued by A.
    a_key, b_key = key(70), key(71)
    a = build(name("Loop A"), a_key, name("Loop B"), b_key, 70, ca=True)
    b = build(name("Loop B"), b_key, name("Loop A"), a_key, 71, ca=True)
    loop_leaf = build(name("localhost"), key(72), a.subject, a_key, 72, extensions=[raw_san(LOCALHOST)])
    write("corpus/chain", "issuer-loop.der", der(loop_leaf) + der(a) + der(b))
    # 40 certificates: a leaf under 38 intermediates under an intermediate of the root.
    chain = [inter]
    keys = [inter_key]
    for depth in range(38):
        k = key(100 + depth)
        chain.append(build(name("Deep %02d" % depth), k, chain[-1].subject, keys[-1], 100 + depth, ca=True))
        keys.append(k)
    deep_leaf = build(name("localhost"), key(99), chain[-1].subject, keys[-1], 99, extensions=[raw_san(LOCALHOST)])
    write("corpus/chain", "forty.der", b"".join(der(c) for c in [deep_leaf] + list(reversed(chain))))
    write("corpus/chain", "constrained.der", der(constrained_leaf) + der(constrained))

    # MARK: crl
    def crl(issuer, issuer_key, serials, extra=()):
        b = (x509.CertificateRevocationListBuilder().issuer_name(issuer.subject)
             .last_update(NOT_BEFORE).next_update(NOT_AFTER))
        b = b.add_extension(x509.CRLNumber(7), critical=False).add_extension(aki(issuer_key), critical=False)
        for ext, critical in extra:
            b = b.add_extension(ext, critical=critical)
        for s, reason in serials:
            r = x509.RevokedCertificateBuilder().serial_number(s).revocation_date(NOT_BEFORE)
            if reason:
                r = r.add_extension(x509.CRLReason(reason), critical=False)
            b = b.add_revoked_certificate(r.build())
        return b.sign(issuer_key, hashes.SHA256()).public_bytes(serialization.Encoding.DER)
    write("corpus/crl", "root-empty.der", crl(root, root_key, []))
    write("corpus/crl", "root-revokes-intermediate.der", crl(root, root_key, [(2, x509.ReasonFlags.key_compromise)]))
    write("corpus/crl", "intermediate-revokes-leaf.der", crl(inter, inter_key, [(3, None), (4, x509.ReasonFlags.superseded)]))
    idp = x509.IssuingDistributionPoint([x509.UniformResourceIdentifier("http://crl.example/c.crl")], None, False, True, None, False, False)
    write("corpus/crl", "intermediate-idp-delta.der",
          crl(inter, inter_key, [(3, None)], [(idp, True), (x509.DeltaCRLIndicator(5), True)]))

    # MARK: ocsp
    def ocsp(status, responder_cert, responder_key, certs=None, revoked=False):
        b = OCSPResponseBuilder().add_response(
            cert=leaf, issuer=inter, algorithm=hashes.SHA1(), cert_status=status,
            this_update=NOT_BEFORE, next_update=NOT_AFTER,
            revocation_time=NOT_BEFORE if revoked else None,
            revocation_reason=x509.ReasonFlags.key_compromise if revoked else None)
        b = b.responder_id(OCSPResponderEncoding.HASH, responder_cert)
        if certs:
            b = b.certificates(certs)
        return b.sign(responder_key, hashes.SHA256()).public_bytes(serialization.Encoding.DER)
    write("corpus/ocsp", "good.der", ocsp(OCSPCertStatus.GOOD, inter, inter_key))
    write("corpus/ocsp", "revoked.der", ocsp(OCSPCertStatus.REVOKED, inter, inter_key, revoked=True))
    write("corpus/ocsp", "unknown.der", ocsp(OCSPCertStatus.UNKNOWN, inter, inter_key))
    responder_key = key(80)
    responder = build(name("Fuzz OCSP Responder"), responder_key, inter.subject, inter_key, 80,
                      eku=[ExtendedKeyUsageOID.OCSP_SIGNING])
    write("corpus/ocsp", "delegated.der", ocsp(OCSPCertStatus.GOOD, responder, responder_key, certs=[responder]))
    write("corpus/ocsp", "signed-by-leaf.der", ocsp(OCSPCertStatus.GOOD, leaf, leaf_key, certs=[leaf]))
    for status in (OCSPResponseStatus.MALFORMED_REQUEST, OCSPResponseStatus.TRY_LATER, OCSPResponseStatus.UNAUTHORIZED):
        write("corpus/ocsp", "status-%s.der" % status.name.lower(),
              OCSPResponseBuilder.build_unsuccessful(status).public_bytes(serialization.Encoding.DER))
    del responder

    # MARK: pkcs12
    light = (serialization.PrivateFormat.PKCS12.encryption_builder().kdf_rounds(1)
             .key_cert_algorithm(pkcs12.PBES.PBESv1SHA1And3KeyTripleDESCBC).hmac_hash(hashes.SHA1()).build(b"fuzz"))
    write("corpus/pkcs12", "password-fuzz.p12", pkcs12.serialize_key_and_certificates(b"leaf", leaf_key, leaf, [inter, root], light))
    plain = pkcs12.serialize_key_and_certificates(b"leaf", leaf_key, leaf, [inter], serialization.NoEncryption())
    write("corpus/pkcs12", "no-password.p12", plain)
    # The same PFX without its macData (the last element of the outer SEQUENCE), so every byte
    # inside is reachable without a MAC to match.
    write("corpus/pkcs12", "no-mac.p12", strip_last_element(plain))
    rsa_key = rsa.generate_private_key(65537, 2048)
    rsa_cert = build(name("rsa client"), rsa_key, inter.subject, inter_key, 90)
    write("corpus/pkcs12", "rsa-no-mac.p12", strip_last_element(
        pkcs12.serialize_key_and_certificates(b"rsa", rsa_key, rsa_cert, None, serialization.NoEncryption())))
    write("corpus/pkcs12", "key-only.p12", pkcs12.serialize_key_and_certificates(None, leaf_key, None, None, serialization.NoEncryption()))

    # MARK: pem (client identities)
    pem = lambda c: c.public_bytes(serialization.Encoding.PEM)
    key_pem = leaf_key.private_bytes(serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8, serialization.NoEncryption())
    write("corpus/pem", "identity-leaf-key.pem", pem(leaf) + key_pem)
    write("corpus/pem", "identity-chain-key.pem", pem(leaf) + pem(inter) + key_pem)
    write("corpus/pem", "identity-mismatched-key.pem", pem(inter) + key_pem)
    enc = leaf_key.private_bytes(serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8,
                                 serialization.BestAvailableEncryption(b"fuzz"))
    write("corpus/pem", "identity-encrypted-key.pem", pem(leaf) + enc)
    write("corpus/pem", "identity-othername.pem", pem(x509.load_der_x509_certificate(
        open(os.path.join(FUZZ, "corpus/certificate/san-othername-upn.der"), "rb").read())) + key_pem)

    # MARK: anchors
    with open(os.path.join(FUZZ, "Sources/X509FuzzHarness/Anchors.swift"), "w") as f:
        f.write("// Generated by Fuzz/seeds/make-x509-seeds.py: the fixed PKI every X.509 target evaluates\n"
                "// against. The root is the only anchor; the corpora's certificates are issued under it.\n\n"
                "/// The fixed trust material of the X.509 targets.\n"
                "public enum Anchors {\n"
                "    /// 2026-06-01T00:00:00Z: every seed certificate is valid then.\n"
                "    public static let verificationTime: Int64 = %d\n\n" % VERIFY_AT)
        for label, c in (("root", root), ("intermediate", inter), ("leaf", leaf)):
            f.write("    /// The %s certificate (DER).\n    public static let %sDER: [UInt8] = [\n%s\n    ]\n\n"
                    % (label, label, swift_bytes(der(c))))
        f.write("}\n")


def strip_last_element(pfx):
    # Outer SEQUENCE header, then version, authSafe, macData: drop macData and fix the length.
    def header(b, i):
        n = b[i + 1]
        if n < 0x80:
            return 2, n
        k = n & 0x7F
        return 2 + k, int.from_bytes(b[i + 2:i + 2 + k], "big")
    h, _ = header(pfx, 0)
    i = h
    elements = []
    while i < len(pfx):
        eh, el = header(pfx, i)
        elements.append(pfx[i:i + eh + el])
        i += eh + el
    return tlv(0x30, b"".join(elements[:2]))


if __name__ == "__main__":
    main()
