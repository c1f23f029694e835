#!/usr/bin/env bash
# The listener under a hostile crowd (issue: connections that cannot starve
# the daemon): transitd on the mock upstream, then
#   1. 1,000 idle keep-alive connections and 300 slowloris connections open,
#      /healthz and a cached get_departures measured beside them;
#   2. 10,000 get_departures calls waiting on an upstream that answers after
#      20 s, /healthz and the cached call measured beside them.
# Prints the RESULT lines of bench/crowd.cpp per scenario.
#
#   bash bench/crowd.sh [--build DIR] [--idle N] [--slow N] [--waiting N]
# Everything listens on 127.0.0.1 and stops at the end.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
build=$root/build
idle=1000
slow=300
waiting=10000
while [ $# -gt 0 ]; do
  case $1 in
    --build) build=$(cd "$2" && pwd); shift 2 ;;
    --idle) idle=$2; shift 2 ;;
    --slow) slow=$2; shift 2 ;;
    --waiting) waiting=$2; shift 2 ;;
    *) echo "unknown option $1" >&2; exit 2 ;;
  esac
done
. "$root/bench/lib.sh"
tmp=$(mktemp -d)
pids=()
cleanup() {
  for p in "${pids[@]}"; do kill "$p" 2>/dev/null || true; done
  wait 2>/dev/null || true
  rm -rf "$tmp"
}
trap cleanup EXIT
ulimit -n "$(ulimit -Hn)" 2>/dev/null || true

listening_port() { # pid -> the TCP port it listens on
  local pid=$1 port=""
  for _ in $(seq 1 100); do
    port=$(ss -ltnp 2>/dev/null | awk -v pid="pid=$pid," '$0 ~ pid {split($4,a,":"); print a[length(a)]; exit}')
    [ -n "$port" ] && { echo "$port"; return 0; }
    sleep 0.1
  done
  return 1
}

bench_build "$build" transitd transit-mock-upstream transitd-crowd
"$build/transit-mock-upstream" --port 0 --threads 64 >"$tmp/mock.out" 2>/dev/null &
mock_pid=$!; pids+=("$mock_pid")
mock="http://127.0.0.1:$(listening_port "$mock_pid")"

TFL_API_KEY=bench "$build/transitd" --port 0 --log-level warn \
  --data-dir :memory: --http-threads 128 \
  --max-connections-per-client 30000 --max-connections 30000 \
  --digitransit-routing-url "$mock/routing/v2/hsl/gtfs/v1" \
  --digitransit-geocoding-url "$mock/geocoding/v1" --tfl-url "$mock" \
  --upstream-tps digitransit-routing=0,digitransit-geocoding=0,tfl=0 \
  --tool-tps get_departures=0 >"$tmp/transitd.log" 2>&1 &
pid=$!; pids+=("$pid")
port=$(listening_port "$pid") || { cat "$tmp/transitd.log"; exit 1; }

session=$(curl -s -D - -o /dev/null -H 'Content-Type: application/json' \
  -H 'Accept: application/json, text/event-stream' \
  -d '{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"bench","version":"1"}}}' \
  "http://127.0.0.1:$port/mcp" | tr -d '\r' | awk -F': ' 'tolower($1)=="mcp-session-id"{print $2}')
printf '{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"get_departures","arguments":{"stop":{"type":"id","value":"HSL:1040129"},"limit":5}}}' >"$tmp/cached.json"
printf '{"jsonrpc":"2.0","id":%%N%%,"method":"tools/call","params":{"name":"get_departures","arguments":{"stop":{"type":"id","value":"HSL:%%N%%"},"limit":5}}}' >"$tmp/waiting.json"
# Warm the cached call.
"$build/bench/transitd-crowd" --port "$port" --session "$session" \
  --cached-body "$tmp/cached.json" --idle 0 --slow 0 --samples 5 >/dev/null

echo "== 1. $idle idle keep-alive + $slow slowloris connections"
"$build/bench/transitd-crowd" --port "$port" --session "$session" \
  --cached-body "$tmp/cached.json" --idle "$idle" --slow "$slow" \
  --samples 500 | grep RESULT

echo "== 2. $waiting calls waiting on a slow upstream (20 s)"
curl -s -m 5 -d '{"latencyMs":20000}' "$mock/__mock/faults" >/dev/null
"$build/bench/transitd-crowd" --port "$port" --session "$session" \
  --cached-body "$tmp/cached.json" --waiting-body "$tmp/waiting.json" \
  --idle 0 --slow 0 --waiting "$waiting" --samples 500 | grep RESULT
ps -o rss=,nlwp= -p "$pid" | awk '{printf "daemon: RSS %d MB, %d threads\n", $1/1024, $2}'
