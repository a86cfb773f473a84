#!/usr/bin/env bash
# Issue 18's regression matrix at full size, run by hand (CI runs the same tests smaller):
# every GeneralName kind of Tests/Support/SANKindsLab.swift behind `openssl s_server`, 200
# connections per (kind, mode) through Session (one process) and through `fetch` (one process per
# connection, so ASLR moves libcrypto's OID table and the heap each time), trusted, untrusted,
# pinned to another key and pinned to the server's key: 11 kinds x 4 modes x 200 = 8,800 fetch
# processes and 8,800 Session handshakes. Usage: bash scripts/san-kinds-matrix.sh [COUNT]
# (after swift build --build-tests). Fails if any connection ends otherwise than expected.
# LARIAT_SAN_MATRIX_KINDS=san-email,san-uri (certificate file names) runs only those kinds.
set -euo pipefail
cd "$(dirname "$0")/.."
count=${1:-200}
start=$(date +%s)
LARIAT_SAN_MATRIX_COUNT=$count swift test --skip-build --filter 'SANKindsHandshakeTests'
echo "san-kinds matrix: $count connections per (kind, mode), $(( $(date +%s) - start )) s"
