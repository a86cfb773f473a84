#!/usr/bin/env bash
# Installs what Lariat's tests and benchmarks need on a fresh Debian machine. Idempotent:
# nothing is fetched when everything is already there.
#
#   scripts/install-test-deps.sh            system packages + httpbin venv
#   scripts/install-test-deps.sh --no-venv  system packages only (what Benchmarks/run.sh needs)
#
# System packages (apt, `apt-get update` at most once, only if something is missing):
#   nginx curl wrk valgrind openssl taskset(util-linux) pkg-config libssl-dev zlib1g-dev time(GNU),
#   binutils (readelf), mount and coreutils (chroot) for the container fetch check, make and
#   perl (its trimmed OpenSSL build, scripts/build-trimmed-openssl.sh), hyperfine
#   if the archive has it, iproute2 (`ip`: the reachability tests' network namespaces), patch
#   (scripts/autobahn/install.sh applies its Python 3 port with it).
# Python: a venv at .build-venv/ (gitignored) with scripts/requirements-test.txt; the system
#   Python is never modified. Set PYTHON to choose the interpreter (default python3).
set -euo pipefail

root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
with_venv=1
for arg in "$@"; do
    case $arg in
        --no-venv) with_venv=0 ;;
        *) echo "usage: $0 [--no-venv]" >&2; exit 2 ;;
    esac
done

# command-name:debian-package pairs; a package is installed only when its command is missing.
required=(nginx:nginx curl:curl wrk:wrk valgrind:valgrind openssl:openssl taskset:util-linux
    pkg-config:pkg-config readelf:binutils mount:mount chroot:coreutils ip:iproute2 patch:patch
    make:make)
optional=(hyperfine:hyperfine)

missing=()
for pair in "${required[@]}" "${optional[@]}"; do
    command -v "${pair%%:*}" >/dev/null 2>&1 || missing+=("${pair##*:}")
done
if ! [ -f /usr/include/openssl/ssl.h ]; then missing+=(libssl-dev); fi
# zlib headers and libz.a: the CZlib module (content coding) and the static container fetch.
if ! [ -f /usr/include/zlib.h ]; then missing+=(zlib1g-dev); fi
# OpenSSL's Configure (scripts/build-trimmed-openssl.sh, the container fetch) needs perl's
# IPC::Cmd, which perl-base lacks.
if ! perl -MIPC::Cmd -e 1 2>/dev/null; then missing+=(perl); fi
# GNU time (not the shell keyword): the benchmark runner reads peak RSS of curl and wrk from it.
if ! [ -x /usr/bin/time ]; then missing+=(time); fi

apt_updated=0
apt_update_once() {
    if [ $apt_updated = 0 ]; then
        apt-get update -qq
        apt_updated=1
    fi
}

if [ ${#missing[@]} -gt 0 ]; then
    if [ "$(id -u)" != 0 ]; then
        echo "missing packages (${missing[*]}) and not root: install them or rerun as root" >&2
        exit 1
    fi
    export DEBIAN_FRONTEND=noninteractive
    apt_update_once
    to_install=()
    for package in "${missing[@]}"; do
        if [ "$package" = hyperfine ] && ! apt-cache show hyperfine >/dev/null 2>&1; then
            echo "hyperfine is not in this apt archive; skipping it (cold-start checks need it)" >&2
            continue
        fi
        to_install+=("$package")
    done
    if [ ${#to_install[@]} -gt 0 ]; then
        echo "installing: ${to_install[*]}"
        # Debian's nginx package would start a system-wide nginx listening on all interfaces
        # (port 80). A policy-rc.d that answers 101 ("action forbidden") keeps package scripts
        # from starting any service; it is removed again unless one was already there.
        policy=/usr/sbin/policy-rc.d
        own_policy=0
        if ! [ -e $policy ]; then
            printf '#!/bin/sh\nexit 101\n' >$policy
            chmod 755 $policy
            own_policy=1
            trap '[ $own_policy = 1 ] && rm -f $policy' EXIT
        fi
        apt-get install -y -qq --no-install-recommends "${to_install[@]}" >/dev/null
        if [ $own_policy = 1 ]; then rm -f $policy; own_policy=0; fi
    fi
    # If a system nginx got started anyway, stop only that one (its PID file), nothing else.
    if [ -s /run/nginx.pid ] && command -v nginx >/dev/null; then
        kill -TERM "$(cat /run/nginx.pid)" 2>/dev/null || true
    fi
fi

if [ $with_venv = 1 ]; then
    venv=$root/.build-venv
    python=${PYTHON:-python3}
    if ! [ -x "$venv/bin/python" ]; then
        if ! "$python" -m venv "$venv" 2>/dev/null; then
            # Debian's own python3 needs python3-venv for `-m venv`.
            rm -rf "$venv"
            if [ "$(id -u)" = 0 ]; then
                export DEBIAN_FRONTEND=noninteractive
                apt_update_once
                apt-get install -y -qq --no-install-recommends python3-venv >/dev/null
            fi
            "$python" -m venv "$venv"
        fi
    fi
    # pip contacts the index only when a pinned requirement is not installed yet.
    "$venv/bin/python" -m pip install -q --disable-pip-version-check -r "$root/scripts/requirements-test.txt"
fi

echo "test dependencies ready"
