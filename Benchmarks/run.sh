#!/usr/bin/env bash
# One command for the macro-benchmarks; see Benchmarks/README.md and `run.sh --help`.
set -euo pipefail
exec python3 "$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)/run.py" "$@"
