#!/usr/bin/env bash
# steady-series: the per-second series a fresh server gives under load, to choose
# barrage's steady-state rule (docs/steady-state.md). For each server (netty, jetty:
# JIT-compiled, started fresh from servers/<name>/target/server.jar; nginx: not JIT)
# and each kind of load (closed loop: successful requests/s; fixed rate: p99), it
# starts the server, runs barrage --live for SECONDS and prints one line per second:
#   server kind second succeeded p99_us   (tab-separated)
# Usage: client/bench/steady-series.sh [SECONDS] [SERVER...]   (prints to stdout)
# Env: JARS (default: servers/), BARRAGE (default client/build/barrage), RATE (default 20000).
set -euo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
root=$(cd "$here/../.." && pwd)
seconds=${1:-40}
shift || true
servers=("${@:-netty jetty nginx}")
read -r -a servers <<<"${servers[*]}"
jars=${JARS:-$root/servers}
barrage=${BARRAGE:-$root/client/build/barrage}
rate=${RATE:-20000}
# shellcheck source=lib/log.sh
source "$root/lib/log.sh"
# shellcheck source=lib/java.sh
source "$root/lib/java.sh"
java_home=$(java::home)
work=$(mktemp -d)
server_pid=''
cleanup() { [[ -n $server_pid ]] && kill "$server_pid" 2>/dev/null; rm -rf "$work"; }
trap cleanup EXIT

free_port() { python3 -c 'import socket;s=socket.socket();s.bind(("127.0.0.1",0));print(s.getsockname()[1])'; }

start_server() { # name port
  local name=$1 port=$2
  if [[ $name == nginx ]]; then
    mkdir -p "$work/nginx"
    cat >"$work/nginx/nginx.conf" <<CONF
worker_processes 1; daemon off; pid $work/nginx/pid; error_log $work/nginx/error.log;
events { worker_connections 1024; }
http { access_log off; client_body_temp_path $work/nginx; proxy_temp_path $work/nginx;
  fastcgi_temp_path $work/nginx; uwsgi_temp_path $work/nginx; scgi_temp_path $work/nginx;
  server { listen 127.0.0.1:$port; location / { return 200 "Hello world"; } } }
CONF
    nginx -c "$work/nginx/nginx.conf" -e "$work/nginx/error.log" &
  else
    PORT=$port BIND=127.0.0.1 "$java_home/bin/java" -Xms1g -Xmx1g -jar "$jars/$name/target/server.jar" >"$work/$name.log" 2>&1 &
  fi
  server_pid=$!
  for _ in $(seq 300); do curl -fs "http://127.0.0.1:$port/hello" >/dev/null && return 0; sleep 0.1; done
  echo "$name did not start" >&2; return 1
}

for name in "${servers[@]}"; do
  for kind in closed rate; do
    port=$(free_port)
    start_server "$name" "$port"
    args=(-c 50 -t 1 -d "${seconds}s" --json)
    [[ $kind == rate ]] && args+=(-R "$rate")
    "$barrage" "${args[@]}" "http://127.0.0.1:$port/hello" 2>/dev/null |
      jq -r --arg s "$name" --arg k "$kind" \
        '.timeline[] | select(.in_grace | not) | [$s, $k, .t_s, .succeeded, (.latency_us.p99 // "-")] | @tsv'
    kill "$server_pid"; wait "$server_pid" 2>/dev/null || true; server_pid=''
  done
done
