#!/usr/bin/env bash
# Installs the Autobahn|Testsuite fuzzingserver for Python 3 into .build-autobahn/:
#   .build-autobahn/venv   a venv with scripts/autobahn/requirements.txt
#   .build-autobahn/src    autobahntestsuite 25.10.1 from PyPI (Python 2 source), patched by
#                          scripts/autobahn/py3.patch (2to3 plus hand fixes; README.md here)
# Run it as: PYTHONPATH=.build-autobahn/src .build-autobahn/venv/bin/python \
#              -m autobahntestsuite.wstest -m fuzzingserver -s SPEC --webport 0
# Idempotent: does nothing when the same patch is already installed.
set -euo pipefail
cd "$(dirname "$0")/../.."
here=scripts/autobahn
root=.build-autobahn
version=25.10.1
stamp="$root/installed"
want="$version $(sha256sum "$here/py3.patch" "$here/requirements.txt" | sha256sum | cut -c1-16)"
if [[ -f "$stamp" && "$(cat "$stamp")" == "$want" ]]; then exit 0; fi

rm -rf "$root"
mkdir -p "$root/download"
python3 -m venv "$root/venv"
"$root/venv/bin/pip" install --quiet --disable-pip-version-check -r "$here/requirements.txt"
"$root/venv/bin/pip" download --quiet --disable-pip-version-check --no-deps --no-binary :all: \
    "autobahntestsuite==$version" -d "$root/download"
tar -xzf "$root/download/autobahntestsuite-$version.tar.gz" -C "$root/download"
mkdir -p "$root/src"
mv "$root/download/autobahntestsuite-$version/autobahntestsuite" "$root/src/"
patch --quiet -p1 -d "$root/src" < "$here/py3.patch"
# Check the port imports before anyone relies on it.
PYTHONPATH="$root/src" "$root/venv/bin/python" -c 'import autobahntestsuite.wstest'
echo "$want" > "$stamp"
