#!/usr/bin/env bash
# plan_trip over MCP in the daemon, as a new user would try it, on one feed
# (bench/gtfs.sh runs it on the subway, and with --mta on every MTA feed):
#
#   bash bench/plan_mcp.sh BUILD NAME SOURCES [DURATION_S]
#
# 1. Start to first answer: a daemon on an empty data directory (it builds
#    the timetable from the sources and writes its snapshot), then the same
#    again (it reads the snapshot); each timed from launch to its first
#    plan_trip answer; resident memory after the second.
# 2. Latency: 400 plan_trip calls between random stops at random times
#    06:00-21:00 (bench/plan_bodies.py), one at a time (wrk, 1 connection).
# 3. Throughput at saturation (8 connections): the daemon on one core
#    (taskset, --scheduler-threads 1) and on both (--scheduler-threads 2).
# Everything on 127.0.0.1, bounded by DURATION_S per measure (default 10).
set -euo pipefail
build=$1 name=$2 sources=$3 duration=${4:-10}
root=$(cd "$(dirname "$0")/.." && pwd)
tmp=$(mktemp -d)
daemon=""
cleanup() {
  if [ -n "$daemon" ]; then kill "$daemon" 2>/dev/null || true; fi
  wait 2>/dev/null || true
  rm -rf "$tmp"
}
trap cleanup EXIT
python3 "$root/bench/plan_bodies.py" "$sources" 2026-10-14 400 >"$tmp/bodies"
head -1 "$tmp/bodies" >"$tmp/first"

now_ms() { date +%s%3N; }
# start [taskset-cpus] [scheduler-threads]: sets daemon, port, session.
start() {
  local cpus=${1:-} threads=${2:-2} launch
  launch=(env)
  [ -n "$cpus" ] && launch=(taskset -c "$cpus")
  "${launch[@]}" "$build/transitd" --port 0 --log-level warn \
    --data-dir "$tmp/data" --tfl-url http://127.0.0.1:9 \
    --scheduler-threads "$threads" \
    --gtfs "$name=$sources" --clock 2026-10-14T05:00:00-04:00 \
    >>"$tmp/daemon.log" 2>&1 &
  daemon=$!
  port=""
  for _ in $(seq 1 600); do
    port=$(ss -ltnp 2>/dev/null | awk -v pid="pid=$daemon," '$0 ~ pid {split($4,a,":"); print a[length(a)]; exit}')
    [ -n "$port" ] && break
    sleep 0.01
  done
  [ -n "$port" ] || { cat "$tmp/daemon.log"; exit 1; }
  session=$(curl -s -m 5 -D - -o /dev/null -H 'Content-Type: application/json' \
    -H 'Accept: application/json, text/event-stream' \
    -d '{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"bench","version":"1"}}}' \
    "http://127.0.0.1:$port/mcp" | tr -d '\r' | awk -F': ' 'tolower($1)=="mcp-session-id"{print $2}')
}
first_answer() { # waits for a plan_trip answer (the feed loaded)
  for _ in $(seq 1 6000); do
    if curl -s -m 30 -H 'Content-Type: application/json' \
         -H 'Accept: application/json, text/event-stream' \
         -H 'MCP-Protocol-Version: 2025-11-25' -H "Mcp-Session-Id: $session" \
         --data-binary @"$tmp/first" "http://127.0.0.1:$port/mcp" \
         | grep -q '"itineraries"'; then
      return 0
    fi
    sleep 0.02
  done
  echo "no answer"; cat "$tmp/daemon.log"; exit 1
}
stop() { kill "$daemon"; wait "$daemon" 2>/dev/null || true; daemon=""; }
wrk_run() { # connections -> RESULT line
  wrk -t1 -c"$1" -d"${duration}s" --latency -s "$root/bench/bodies_call.lua" \
    "http://127.0.0.1:$port/mcp" -- "$session" "$tmp/bodies" | grep RESULT
}
field() { sed -n "s/.*[ ]$1=\([0-9.]*\).*/\1/p" <<<" $2"; }

t0=$(now_ms); start; first_answer; fresh=$(( $(now_ms) - t0 )); stop
t0=$(now_ms); start; first_answer; again=$(( $(now_ms) - t0 ))
sleep 2
rss=$(awk '/VmRSS/ {printf "%.0f", $2 / 1024}' "/proc/$daemon/status")
from_snapshot=$(curl -s -m 5 "http://127.0.0.1:$port/metrics" \
  | awk '/^transitd_feed_from_snapshot/ {print $2}')
one=$(wrk_run 1)
both=$(wrk_run 8)
stop
start 0 1; first_answer
single=$(wrk_run 8)
stop
ratio=$(awk -v a="$(field rps "$both")" -v b="$(field rps "$single")" \
  'BEGIN { if (b > 0) printf "%.2f", a / b; else print "-" }')
echo "| measure | $name |"
echo "|---|--:|"
echo "| start to first plan_trip answer, building the timetable (and writing its snapshot) | $fresh ms |"
echo "| start to first plan_trip answer, reading the snapshot (from_snapshot $from_snapshot) | $again ms |"
echo "| RSS after that start | $rss MB |"
echo "| plan_trip over MCP, random stops 06-21 h, one at a time, p50 / p99 | $(field p50_ms "$one") / $(field p99_ms "$one") ms ($(field requests "$one") calls) |"
echo "| plan_trip req/s at saturation (8 connections), one core | $(field rps "$single") |"
echo "| plan_trip req/s at saturation (8 connections), both cores | $(field rps "$both") ($ratio x) |"
errors=$(( $(field errors "$one") + $(field errors "$both") + $(field errors "$single") \
  + $(field non2xx "$one") + $(field non2xx "$both") + $(field non2xx "$single") ))
echo "| errors | $errors |"
