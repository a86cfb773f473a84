#!/usr/bin/env bash
# Test and benchmark nginx for Lariat: loopback only, everything under DIR, no root-owned defaults.
#
#   scripts/nginx.sh start DIR   mint a test CA + server cert, write the docroot and config, start
#                                nginx (daemon, 1 worker), wait until it answers, print the ports
#   scripts/nginx.sh stop DIR    stop exactly the nginx whose PID is in DIR/nginx.pid
#
# Files written under DIR (DIR is created; relative paths are taken from the current directory):
#   http.port, https.port    the ports (also printed as LARIAT_NGINX_* lines on stdout)
#   env                      shell lines: LARIAT_NGINX_HTTP, LARIAT_NGINX_HTTPS, LARIAT_NGINX_CA
#   ca.path                  absolute path of the CA certificate (PEM) clients must trust
#   tls/ca.pem               that CA (ECDSA P-256, valid 7 days, minted on start when missing or
#                            expiring within a day); tls/server.pem + server.key: the leaf, with
#                            SAN DNS:localhost, IP:127.0.0.1, IP:::1
#   docroot/                 0.bin (0 B), 1k.bin, 64k.bin, 1m.bin, 100m.bin (random bytes) and
#                            doc.json (scripts/fixtures/bench.json, ~2 KiB), 1k.json
#                            (scripts/fixtures/openapi-1k.json, 1024 B: the OpenAPI row)
#   nginx.conf, nginx.pid, logs/error.log, tmp/
#
# Endpoints on both ports: GET /<file> (static, keep-alive, keepalive_requests 1000000);
# POST or PUT /upload (up to 200 MiB): nginx reads the WHOLE body, then answers 204. This is a
# proxy_pass to a discard server on a unix socket inside the same nginx: the proxy module
# buffers the entire request body before it contacts the upstream (proxy_request_buffering on)
# and proxy_pass_request_body off keeps it from forwarding it. `return 204` would answer before
# the body arrived (the body is discarded in the background), which makes upload timings lie.
#
# Environment: NGINX_HTTP_PORT / NGINX_HTTPS_PORT pick ports (default: free ports chosen by the
# kernel); NGINX_CPU=N pins nginx to CPU N with taskset; NGINX_ACCESS_LOG=1 writes
# logs/access.log with $connection, $connection_requests and $ssl_session_reused per request.
set -euo pipefail

usage() { echo "usage: $0 start|stop DIR" >&2; exit 2; }
[ $# -eq 2 ] || usage
action=$1
mkdir -p "$2"
dir=$(cd "$2" && pwd)
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)

free_port() {
    python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1]); s.close()'
}

ipv6_loopback() {
    python3 -c 'import socket; s=socket.socket(socket.AF_INET6); s.bind(("::1",0)); s.close()' 2>/dev/null
}

mint_tls() {
    local tls=$dir/tls
    mkdir -p "$tls"
    if [ -s "$tls/ca.pem" ] && [ -s "$tls/server.pem" ] && [ -s "$tls/server.key" ] \
        && openssl x509 -checkend 86400 -noout -in "$tls/server.pem" >/dev/null 2>&1 \
        && openssl x509 -checkend 86400 -noout -in "$tls/ca.pem" >/dev/null 2>&1; then
        return
    fi
    local work
    work=$(mktemp -d)
    openssl genpkey -algorithm EC -pkeyopt ec_paramgen_curve:P-256 -out "$work/ca.key" 2>/dev/null
    openssl req -x509 -new -key "$work/ca.key" -sha256 -days 7 -subj "/CN=Lariat Test CA" \
        -addext "basicConstraints=critical,CA:TRUE" \
        -addext "keyUsage=critical,keyCertSign,cRLSign" \
        -out "$work/ca.pem" 2>/dev/null
    openssl genpkey -algorithm EC -pkeyopt ec_paramgen_curve:P-256 -out "$work/server.key" 2>/dev/null
    openssl req -new -key "$work/server.key" -subj "/CN=localhost" -out "$work/server.csr" 2>/dev/null
    cat >"$work/leaf.ext" <<'EXT'
basicConstraints=critical,CA:FALSE
keyUsage=critical,digitalSignature
extendedKeyUsage=serverAuth
subjectAltName=DNS:localhost,IP:127.0.0.1,IP:::1
subjectKeyIdentifier=hash
authorityKeyIdentifier=keyid
EXT
    openssl x509 -req -in "$work/server.csr" -CA "$work/ca.pem" -CAkey "$work/ca.key" \
        -CAcreateserial -days 7 -sha256 -extfile "$work/leaf.ext" -out "$work/server.pem" 2>/dev/null
    openssl verify -CAfile "$work/ca.pem" "$work/server.pem" >/dev/null
    # The CA key is not kept: nothing else should ever be signed by this CA.
    mv "$work/ca.pem" "$work/server.pem" "$work/server.key" "$tls/"
    chmod 600 "$tls/server.key"
    rm -rf "$work"
}

make_docroot() {
    local root=$dir/docroot
    mkdir -p "$root"
    local name size
    for spec in 0.bin:0 1k.bin:1024 64k.bin:65536 1m.bin:1048576 100m.bin:104857600; do
        name=${spec%%:*}
        size=${spec##*:}
        if [ ! -f "$root/$name" ] || [ "$(stat -c %s "$root/$name")" != "$size" ]; then
            head -c "$size" /dev/urandom >"$root/$name.tmp"
            mv "$root/$name.tmp" "$root/$name"
        fi
    done
    cp "$here/fixtures/bench.json" "$root/doc.json"
    cp "$here/fixtures/openapi-1k.json" "$root/1k.json"
}

# The discard upstream's unix socket; sun_path holds 108 bytes, so a deep DIR falls back to /tmp.
discard_socket() {
    local socket=$dir/discard.sock
    if [ ${#socket} -ge 100 ]; then
        socket=/tmp/lariat-nginx-$(printf '%s' "$dir" | md5sum | cut -c1-12).sock
    fi
    echo "$socket"
}

write_config() {
    local http=$1 https=$2 v6=$3 user_line="" log_line="access_log off;" socket
    socket=$(discard_socket)
    # nginx started by root switches workers to "nobody", who may not traverse DIR; workers of
    # this loopback-only test server run as the invoking user instead.
    if [ "$(id -u)" = 0 ]; then user_line="user root root;"; fi
    if [ "${NGINX_ACCESS_LOG:-0}" = 1 ]; then
        log_line="log_format lariat '\$request \$status \$body_bytes_sent conn=\$connection req=\$connection_requests reused=\$ssl_session_reused';
    access_log $dir/logs/access.log lariat;"
    fi
    local listen6="" listen6s=""
    if [ "$v6" = 1 ]; then
        listen6="listen [::1]:$http;"
        listen6s="listen [::1]:$https ssl;"
    fi
    cat >"$dir/nginx.conf" <<CONF
# Generated by scripts/nginx.sh; edits are overwritten on the next start.
$user_line
daemon on;
worker_processes 1;
pid $dir/nginx.pid;
error_log $dir/logs/error.log warn;
worker_rlimit_nofile 8192;

events {
    worker_connections 4096;
}

http {
    $log_line
    types {
        application/json json;
        application/octet-stream bin;
    }
    default_type application/octet-stream;
    sendfile on;
    tcp_nopush on;
    tcp_nodelay on;
    keepalive_timeout 75s;
    keepalive_requests 1000000;
    server_tokens off;
    etag off;

    client_body_temp_path $dir/tmp/client_body;
    proxy_temp_path $dir/tmp/proxy;
    fastcgi_temp_path $dir/tmp/fastcgi;
    uwsgi_temp_path $dir/tmp/uwsgi;
    scgi_temp_path $dir/tmp/scgi;

    # The discard upstream behind /upload: answers 204 to a request that carries no body.
    server {
        listen unix:$socket;
        location / { return 204; }
    }

    server {
        listen 127.0.0.1:$http;
        listen 127.0.0.1:$https ssl;
        $listen6
        $listen6s
        server_name localhost;
        root $dir/docroot;

        ssl_certificate $dir/tls/server.pem;
        ssl_certificate_key $dir/tls/server.key;
        ssl_protocols TLSv1.2 TLSv1.3;
        ssl_session_cache shared:LariatTLS:10m;
        ssl_session_timeout 1h;
        ssl_session_tickets on;

        location / {
            limit_except GET HEAD { deny all; }
        }

        location = /upload {
            limit_except POST PUT { deny all; }
            client_max_body_size 200m;
            # 1 MiB in memory, the rest spills to tmp/client_body (page cache) until the proxy
            # has the whole body; then the upstream answers and the temporary file is dropped.
            client_body_buffer_size 1m;
            proxy_request_buffering on;
            proxy_pass_request_body off;
            proxy_set_header Content-Length "";
            proxy_set_header Content-Type "";
            proxy_http_version 1.1;
            proxy_set_header Connection "";
            proxy_pass http://unix:$socket:/;
        }
    }
}
CONF
}

wait_until_up() {
    local port=$1
    for _ in $(seq 1 100); do
        if curl -s -o /dev/null "http://127.0.0.1:$port/0.bin"; then return 0; fi
        sleep 0.1
    done
    echo "nginx did not answer on 127.0.0.1:$port; see $dir/logs/error.log" >&2
    return 1
}

running_pid() {
    [ -s "$dir/nginx.pid" ] || return 1
    local pid
    pid=$(cat "$dir/nginx.pid")
    kill -0 "$pid" 2>/dev/null || return 1
    echo "$pid"
}

start() {
    command -v nginx >/dev/null || { echo "nginx is not installed (scripts/install-test-deps.sh)" >&2; exit 1; }
    if pid=$(running_pid); then
        echo "nginx already running in $dir (pid $pid); stop it first" >&2
        exit 1
    fi
    mkdir -p "$dir/logs" "$dir/tmp"
    rm -f "$(discard_socket)"
    mint_tls
    make_docroot
    local http=${NGINX_HTTP_PORT:-$(free_port)} https=${NGINX_HTTPS_PORT:-$(free_port)} v6=0
    while [ "$https" = "$http" ]; do https=$(free_port); done
    if ipv6_loopback; then v6=1; fi
    write_config "$http" "$https" "$v6"
    local launcher=()
    if [ -n "${NGINX_CPU:-}" ] && command -v taskset >/dev/null; then launcher=(taskset -c "$NGINX_CPU"); fi
    "${launcher[@]}" nginx -p "$dir" -c "$dir/nginx.conf" -e "$dir/logs/error.log"
    wait_until_up "$http"
    echo "$http" >"$dir/http.port"
    echo "$https" >"$dir/https.port"
    echo "$dir/tls/ca.pem" >"$dir/ca.path"
    cat >"$dir/env" <<ENV
LARIAT_NGINX_HTTP=http://127.0.0.1:$http
LARIAT_NGINX_HTTPS=https://127.0.0.1:$https
LARIAT_NGINX_CA=$dir/tls/ca.pem
ENV
    cat "$dir/env"
}

stop() {
    local pid
    if ! pid=$(running_pid); then
        echo "no nginx running in $dir"
        return 0
    fi
    kill -TERM "$pid"
    for _ in $(seq 1 100); do
        kill -0 "$pid" 2>/dev/null || { rm -f "$dir/nginx.pid" "$(discard_socket)"; echo "stopped nginx $pid"; return 0; }
        sleep 0.1
    done
    echo "nginx $pid did not exit after SIGTERM; sending SIGKILL to it and its workers" >&2
    local -a workers=()
    mapfile -t workers < <(ps -o pid= --ppid "$pid" | tr -d " ")
    kill -KILL "$pid" "${workers[@]}" 2>/dev/null || true
    rm -f "$dir/nginx.pid" "$(discard_socket)"
}

case $action in
    start) start ;;
    stop) stop ;;
    *) usage ;;
esac
