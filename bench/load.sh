#!/usr/bin/env bash
# Quick load check: get_departures over MCP against the mock upstream.
# Starts transit-mock-upstream and transitd on free loopback ports, opens one
# MCP session, and drives tools/call with wrk (bounded: DURATION seconds per
# run). Prints wrk's summary line per connection count and the upstream
# request count.
#
#   bench/load.sh [BUILD_DIR] [DURATION] [CONNECTIONS...]
#   bench/load.sh build 10 32 256
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
build=${1:-$root/build}
duration=${2:-10}
shift $(( $# > 2 ? 2 : $# ))
connections=("${@:-32}")
[ "${#connections[@]}" -gt 0 ] || connections=(32)

tmp=$(mktemp -d)
cleanup() {
  kill "${daemon_pid:-}" "${mock_pid:-}" 2>/dev/null || true
  wait 2>/dev/null || true
  rm -rf "$tmp"
}
trap cleanup EXIT

"$build/transit-mock-upstream" --port 0 --threads 64 >"$tmp/mock.out" 2>"$tmp/mock.err" &
mock_pid=$!
for _ in $(seq 1 50); do
  mock_port=$(head -n 1 "$tmp/mock.out" 2>/dev/null || true)
  [ -n "$mock_port" ] && break
  sleep 0.1
done
"$build/transitd" --port 0 --http-threads 300 --log-level warn \
  --digitransit-routing-url "http://127.0.0.1:$mock_port/routing/v2/hsl/gtfs/v1" \
  >"$tmp/daemon.log" 2>&1 &
daemon_pid=$!
port=""
for _ in $(seq 1 100); do
  # --log-level warn hides the listening line; find the port from /proc.
  port=$(ss -ltnp 2>/dev/null | awk -v pid="pid=$daemon_pid," '$0 ~ pid {split($4,a,":"); print a[length(a)]; exit}')
  [ -n "$port" ] && break
  sleep 0.1
done
[ -n "$port" ] || { cat "$tmp/daemon.log"; echo "transitd did not start" >&2; exit 1; }
url="http://127.0.0.1:$port/mcp"
session=$(curl -s -D - -o /dev/null -H 'Content-Type: application/json' \
  -d '{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"load","version":"1"}}}' \
  "$url" | tr -d '\r' | awk -F': ' 'tolower($1)=="mcp-session-id"{print $2}')
echo "transitd $url (session ${session:0:8}...), mock upstream :$mock_port"
for c in "${connections[@]}"; do
  echo "== get_departures, $c connections, ${duration}s"
  wrk -t2 -c"$c" -d"${duration}s" --latency -s "$root/bench/tools_call.lua" \
    "$url" -- "$session" | grep RESULT
done
echo "upstream requests: $(curl -s "http://127.0.0.1:$mock_port/__mock/stats")"
