#!/usr/bin/env bash
# Builds a trimmed static OpenSSL for the container fetch from Debian's own source package
# (`apt-get source openssl`: the upstream tarball Debian ships), configured with only what fetch
# and its TLS use, into DIR (lib/libssl.a, lib/libcrypto.a, include/, lib/pkgconfig/).
#
#   scripts/build-trimmed-openssl.sh DIR
#
# Kept: TLS 1.2/1.3 (and 1.0/1.1 for --tlsv1.0 under a lowered security level), RSA, RSA-PSS,
# ECDSA, Ed25519/Ed448, X25519/X448 and the NIST P curves, DH/FFDHE, DSA keys, AES (GCM, CBC,
# CCM), ChaCha20-Poly1305, 3DES (PKCS#12 files' PBE), MD5, SHA-1/2/3, HMAC, CMAC, PBKDF2 and the
# PKCS#12 KDF, PKCS#7/#8/#12, OCSP, CRLs, the default and base providers only.
# Dropped: engines, DSO and provider modules (no-module: no legacy provider, so RC2-40 PKCS#12
# files are refused, as with Debian's OpenSSL without `-legacy`), DTLS, SSLv3, CT, CMS, CMP, TS,
# SRP, SRTP, SCTP, NPN, KTLS, async jobs, compression, the console UI, and the ciphers and
# digests fetch never negotiates (IDEA, SEED, Camellia, ARIA, SM2/3/4, GOST, Whirlpool, MDC2,
# MD4, RIPEMD-160, RC2/4/5, Blowfish, CAST, OCB, SIV, scrypt, SipHash, binary curves).
# Compiled -Os with a section per function, so the linker's --gc-sections keeps only what fetch
# calls. OPENSSLDIR stays Debian's (/usr/lib/ssl). Needs deb-src lines for the archive (a
# private apt configuration under DIR is used, the system's sources are not touched), dpkg-dev
# and a C compiler.
set -euo pipefail
[ $# = 1 ] || { echo "usage: $0 DIR" >&2; exit 2; }
mkdir -p "$1"
dir=$(cd "$1" && pwd)
[ -f "$dir/lib/libcrypto.a" ] && [ -f "$dir/lib/pkgconfig/openssl.pc" ] && { echo "trimmed OpenSSL already in $dir"; exit 0; }

# Debian's source package through a private apt configuration: the system's deb lines, as
# deb-src, in DIR/apt (nothing under /etc changes).
apt_dir=$dir/apt
mkdir -p "$apt_dir/parts" "$apt_dir/lists/partial" "$apt_dir/cache/archives/partial"
# Debian's own archives only (a third-party repository may publish no sources).
for sources in /etc/apt/sources.list.d/*.sources; do
    if [ -f "$sources" ] && grep -q 'debian\.org' "$sources"; then
        sed 's/^Types: deb$/Types: deb-src/' "$sources" >"$apt_dir/parts/$(basename "$sources")"
    fi
done
if [ -f /etc/apt/sources.list ]; then
    sed -n '/debian\.org/s/^deb /deb-src /p' /etc/apt/sources.list >"$apt_dir/parts/sources.list"
fi
apt_options=(-o Dir::Etc::SourceList=/dev/null -o "Dir::Etc::SourceParts=$apt_dir/parts"
    -o "Dir::State::Lists=$apt_dir/lists" -o "Dir::Cache=$apt_dir/cache")
apt-get "${apt_options[@]}" update -qq
source_dir=$dir/source
rm -rf "$source_dir" && mkdir -p "$source_dir"
# Only the upstream tarball is needed (Debian's patches are packaging and its own config).
(cd "$source_dir" && apt-get "${apt_options[@]}" source --download-only openssl >/dev/null 2>&1 || true)
tarball=$(ls "$source_dir"/openssl_*.orig.tar.gz 2>/dev/null | head -1)
[ -n "$tarball" ] || { echo "could not download Debian's openssl source (deb-src)" >&2; exit 1; }
tar -xzf "$tarball" -C "$source_dir"
cd "$source_dir"/openssl-*/

# Debian's gcc when installed, else the Swift toolchain's clang.
export CC=${CC:-$(command -v gcc || command -v clang)}
./Configure linux-"$(uname -m)" no-shared no-module no-legacy no-engine no-dso no-tests no-async \
    no-comp no-ct no-cms no-cmp no-ts no-srp no-srtp no-sctp no-nextprotoneg no-dtls no-ssl3 \
    no-idea no-seed no-camellia no-aria no-sm2 no-sm3 no-sm4 no-whirlpool no-mdc2 no-md4 no-rmd160 \
    no-rc2 no-rc4 no-rc5 no-bf no-cast no-gost no-ocb no-siv no-scrypt no-siphash no-ec2m \
    no-ui-console no-ktls no-uplink no-ssl-trace no-filenames \
    --prefix="$dir" --libdir=lib --openssldir=/usr/lib/ssl \
    -Os -ffunction-sections -fdata-sections >/dev/null
make -j"$(nproc)" build_libs >/dev/null
make install_dev >/dev/null
echo "trimmed OpenSSL $(sed -n 's/^Version: //p' "$dir/lib/pkgconfig/openssl.pc") in $dir"
