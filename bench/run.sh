#!/usr/bin/env bash
# The load harness: transitd against the mock upstream over MCP with wrk
# (closed loop: throughput) and bench/open_loop.cpp (fixed rate: latency),
# side by side with the floor (our HTTP listener answering a fixed body) and
# the official MCP TypeScript SDK server (../shared/anchors), in one run.
#
#   bash bench/run.sh [--build DIR] [--duration S] [--soak] [--no-anchor]
#                     [--targets-only] [--rounds N]
#
# Prints one table row per (server, tool, mode, connections): requests/s,
# latency p50/p90/p99, upstream requests, the server's CPU and peak RSS;
# then the ratios the targets in docs/performance.md are stated in. The
# floor and cached get_departures are measured in N adjacent pairs (3 by
# default) at each connection count, and their ratio is the median of the
# pairs': the machine's speed drifts by a third within minutes, and a pair
# measured back to back sees the same machine.
# Everything listens on 127.0.0.1; every run is bounded by --duration.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
build=$root/build
duration=8
soak=false
anchor=true
all_tools=true
rounds=3
while [ $# -gt 0 ]; do
  case $1 in
    --build) build=$(cd "$2" && pwd); shift 2 ;;
    --duration) duration=$2; shift 2 ;;
    --soak) soak=true; shift ;;
    --no-anchor) anchor=false; shift ;;
    --targets-only) all_tools=false; shift ;; # only the rows the targets use
    --rounds) rounds=$2; shift 2 ;;
    *) echo "unknown option $1" >&2; exit 2 ;;
  esac
done
command -v wrk >/dev/null || { echo "wrk is missing: bash scripts/install-deps.sh" >&2; exit 1; }

tmp=$(mktemp -d)
pids=()
cleanup() {
  for p in "${pids[@]}"; do kill "$p" 2>/dev/null || true; done
  wait 2>/dev/null || true
  rm -rf "$tmp"
}
trap cleanup EXIT

listening_port() { # pid -> the TCP port it listens on
  local pid=$1 port=""
  for _ in $(seq 1 100); do
    port=$(ss -ltnp 2>/dev/null | awk -v pid="pid=$pid," '$0 ~ pid {split($4,a,":"); print a[length(a)]; exit}')
    [ -n "$port" ] && { echo "$port"; return 0; }
    sleep 0.1
  done
  return 1
}

# Each upstream connection holds a mock thread while it is kept alive; the
# uncached daemon alone may keep 256 per upstream (its --http-workers).
source "$root/bench/lib.sh"
bench_build "$build" transitd transit-mock-upstream transitd-floor transitd-openloop
"$build/transit-mock-upstream" --port 0 --threads 1024 >"$tmp/mock.out" 2>/dev/null &
mock_pid=$!; pids+=("$mock_pid")
mock_port=$(listening_port "$mock_pid")
mock="http://127.0.0.1:$mock_port"
faults() { curl -s -m 5 -d "$1" "$mock/__mock/faults" >/dev/null; }
upstream_requests() { curl -s -m 5 "$mock/__mock/stats" | sed -n 's/.*"requests":\([0-9]*\).*/\1/p'; }

common=(--port 0 --http-threads 320 --log-level warn --data-dir :memory:
        --digitransit-routing-url "$mock/routing/v2/hsl/gtfs/v1"
        --digitransit-geocoding-url "$mock/geocoding/v1" --tfl-url "$mock"
        --tool-tps planJourney=0,stationToilets=0
        --upstream-tps digitransit-routing=0,digitransit-geocoding=0,tfl=0)
# Sets started_pid and started_port. Not called in a subshell: the pid must
# reach pids, or the daemon would outlive the run.
start_transitd() { # name extra-flags...
  local name=$1; shift
  TFL_API_KEY=bench "$build/transitd" "${common[@]}" "$@" >"$tmp/$name.log" 2>&1 &
  started_pid=$!; pids+=("$started_pid")
  started_port=$(listening_port "$started_pid") || { cat "$tmp/$name.log"; exit 1; }
}
start_transitd cached
cached_pid=$started_pid; cached_port=$started_port
start_transitd uncached \
  --cache-departures-ttl-s 0 --cache-stops-ttl-s 0 --cache-geocoding-ttl-s 0 \
  --http-workers 256
uncached_pid=$started_pid; uncached_port=$started_port

open_session() { # port -> Mcp-Session-Id
  curl -s -m 5 -D - -o /dev/null -H 'Content-Type: application/json' \
    -H 'Accept: application/json, text/event-stream' \
    -d '{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"bench","version":"1"}}}' \
    "http://127.0.0.1:$1/mcp" | tr -d '\r' | awk -F': ' 'tolower($1)=="mcp-session-id"{print $2}'
}
cached_session=$(open_session "$cached_port")
uncached_session=$(open_session "$uncached_port")

body() { # name arguments-json -> file
  printf '{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"%s","arguments":%s}}' \
    "$1" "$2" >"$tmp/$1.json"
  echo "$tmp/$1.json"
}
departures=$(body get_departures '{"stop":{"type":"id","value":"HSL:1040129"},"limit":5}')
stops=$(body find_stops '{"coordinate":{"lat":60.1699,"lon":24.9384},"radius":500}')
geocode=$(body geocode_address '{"text":"kamppi"}')
plan=$(body plan_trip '{"origin":{"type":"coords","value":{"lat":60.1699,"lon":24.9384}},"destination":{"type":"coords","value":{"lat":60.2055,"lon":24.6559}}}')
toilets=$(body stationToilets '{"stationName":"Abbey Wood"}')
journey=$(body planJourney '{"from":"Abbey Wood","to":"Bank"}')

cpu_ticks() { awk '{print $14 + $15}' "/proc/$1/stat"; }
peak_rss_mb() { awk '/VmHWM/ {printf "%.0f", $2 / 1024}' "/proc/$1/status"; }
ticks_per_s=$(getconf CLK_TCK)

declare -A rps_of
field() { sed -n "s/.*[ ]$1=\([0-9.]*\).*/\1/p" <<<" $2"; } # name line -> value
fields() { # line name... -> the values, space-separated (0 when missing)
  local line=$1 name out=()
  shift
  for name; do
    local v; v=$(field "$name" "$line")
    out+=("${v:-0}")
  done
  echo "${out[*]}"
}
printf '| server | tool | mode | conns | req/s | p50 ms | p90 ms | p99 ms | upstream req | CPU %% | peak RSS MB |\n'
printf '|---|---|---|--:|--:|--:|--:|--:|--:|--:|--:|\n'
measure() { # server tool mode pid port session bodyfile conns
  local server=$1 tool=$2 mode=$3 pid=$4 port=$5 session=$6 file=$7 c=$8
  local before_up before_cpu line
  before_up=$(upstream_requests); before_cpu=$(cpu_ticks "$pid")
  line=$(wrk -t2 -c"$c" -d"${duration}s" --latency -s "$root/bench/tools_call.lua" \
           "http://127.0.0.1:$port/mcp" -- "$session" "$file" | grep RESULT)
  local up=$(( $(upstream_requests) - before_up ))
  local cpu=$(( ( $(cpu_ticks "$pid") - before_cpu ) * 100 / (ticks_per_s * duration) ))
  local rps p50 p90 p99 non2xx errors
  read -r rps p50 p90 p99 non2xx errors \
    <<<"$(fields "$line" rps p50_ms p90_ms p99_ms non2xx errors)"
  rps_of["$server/$tool/$mode/$c"]=$rps
  rps_of["p50:$server/$tool/$mode/$c"]=$p50
  rps_of["p99:$server/$tool/$mode/$c"]=$p99
  local note=""
  [ "$non2xx" != 0 ] || [ "$errors" != 0 ] && note=" (non-2xx $non2xx, socket errors $errors)"
  printf '| %s | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s |%s\n' \
    "$server" "$tool" "$mode" "$c" "$rps" "$p50" "$p90" "$p99" "$up" "$cpu" \
    "$(peak_rss_mb "$pid")" "$note"
}

# The floor answers the very bytes transitd answers for a cached call.
curl -s -m 5 -H 'Content-Type: application/json' -H 'Accept: application/json, text/event-stream' \
  -H 'MCP-Protocol-Version: 2025-11-25' -H "Mcp-Session-Id: $cached_session" \
  --data-binary @"$departures" "http://127.0.0.1:$cached_port/mcp" >"$tmp/reply.json"
"$build/bench/transitd-floor" --body-file "$tmp/reply.json" >"$tmp/floor.out" &
floor_pid=$!; pids+=("$floor_pid")
floor_port=$(listening_port "$floor_pid")

ts_pid=""; node_pid=""
if $anchor && [ -f "$root/../shared/anchors/ts-mcp-server.mjs" ] && command -v node >/dev/null; then
  anchor_dir=$build/bench-anchor
  mkdir -p "$anchor_dir"
  cp "$root/../shared/anchors/ts-mcp-server.mjs" "$root/../shared/anchors/fixture.mjs" "$anchor_dir/"
  if [ ! -d "$anchor_dir/node_modules/@modelcontextprotocol/sdk" ]; then
    (cd "$anchor_dir" && npm install --no-audit --no-fund --loglevel=error \
       @modelcontextprotocol/sdk@1.32.2 express@5 zod@4 >/dev/null)
  fi
  ts_port=$(( 28100 + RANDOM % 1000 ))
  node "$anchor_dir/ts-mcp-server.mjs" --port "$ts_port" --mode stateless >"$tmp/ts.log" 2>&1 &
  ts_pid=$!; pids+=("$ts_pid")
  listening_port "$ts_pid" >/dev/null || { cat "$tmp/ts.log"; ts_pid=""; }
  # Bare Node `http`, same bytes: how this machine treats one event loop
  # against the floor's thread per connection (the anchors' reference
  # figures carry the same row).
  node "$root/bench/node_floor.mjs" --body-file "$tmp/reply.json" --port 0 >"$tmp/node.out" 2>&1 &
  node_pid=$!; pids+=("$node_pid")
  node_port=$(listening_port "$node_pid") || { cat "$tmp/node.out"; node_pid=""; }
fi

ratio() { awk -v a="$1" -v b="$2" 'BEGIN { if (b > 0) printf "%.2f", a / b; else print "n/a" }'; }
median() { printf '%s\n' "$@" | sort -n | awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}'; }
declare -A pairs_of
for c in 32 256; do
  pairs=()
  for round in $(seq 1 "$rounds"); do
    measure floor get_departures fixed "$floor_pid" "$floor_port" - "$departures" "$c"
    if [ "$round" = 1 ]; then
      [ -n "$ts_pid" ] && measure ts-sdk-stateless get_departures fixed "$ts_pid" "$ts_port" - "$departures" "$c"
      [ -n "$node_pid" ] && measure node-http get_departures fixed "$node_pid" "$node_port" - "$departures" "$c"
    fi
    measure transitd get_departures cached "$cached_pid" "$cached_port" "$cached_session" "$departures" "$c"
    pairs+=("$(ratio "${rps_of[transitd/get_departures/cached/$c]}" "${rps_of[floor/get_departures/fixed/$c]}")")
  done
  pairs_of[$c]="${pairs[*]}"
  $all_tools || continue
  measure transitd get_departures uncached "$uncached_pid" "$uncached_port" "$uncached_session" "$departures" "$c"
  measure transitd find_stops cached "$cached_pid" "$cached_port" "$cached_session" "$stops" "$c"
  measure transitd find_stops uncached "$uncached_pid" "$uncached_port" "$uncached_session" "$stops" "$c"
  measure transitd geocode_address cached "$cached_pid" "$cached_port" "$cached_session" "$geocode" "$c"
  measure transitd geocode_address uncached "$uncached_pid" "$uncached_port" "$uncached_session" "$geocode" "$c"
  measure transitd plan_trip uncached "$uncached_pid" "$uncached_port" "$uncached_session" "$plan" "$c"
  measure transitd stationToilets no-upstream "$cached_pid" "$cached_port" "$cached_session" "$toilets" "$c"
  measure transitd planJourney uncached "$uncached_pid" "$uncached_port" "$uncached_session" "$journey" "$c"
done

# Engine overhead, open loop (bench/open_loop.cpp): requests at a fixed
# rate well under saturation over 256 keep-alive connections, each latency
# measured from its intended send time. Uncached with 10 ms added by the
# mock: what transitd adds on top of the upstream's time; cached: the whole
# call with no upstream at all.
openloop() { # label port session bodyfile rate conns [path]
  local label=$1 port=$2 session=$3 file=$4 rate=$5 conns=$6 path=${7:-/mcp} line
  line=$("$build/bench/transitd-openloop" --port "$port" --path "$path" \
           --session "$session" --body-file "$file" --rate "$rate" \
           --connections "$conns" --duration "$duration" --warmup 1 | grep RESULT)
  local p50 p90 p99 max errors intended
  read -r p50 p90 p99 max errors intended \
    <<<"$(fields "$line" p50_ms p90_ms p99_ms max_ms errors intended)"
  rps_of["ol50:$label"]=$p50
  rps_of["ol99:$label"]=$p99
  printf '| %s | %s | %s | %s | %s | %s | %s | %s | %s |\n' \
    "$label" "$rate" "$conns" "$intended" "$errors" "$p50" "$p90" "$p99" "$max"
}
echo
echo "open loop, ${duration}s each (first second not counted):"
echo
printf '| call | req/s offered | conns | requests | errors | p50 ms | p90 ms | p99 ms | max ms |\n'
printf '|---|--:|--:|--:|--:|--:|--:|--:|--:|\n'
openloop "get_departures cached" "$cached_port" "$cached_session" "$departures" 2000 256
faults '{"latencyMs":10}'
# The upstream alone: the very request transitd sends the mock for a
# departures call, replayed straight at the mock at the same rate (a
# different stop each time), over as many connections as transitd's
# upstream workers keep busy at this rate. Its latency is the upstream's
# part of each uncached call: the 10 ms added, the mock's own handling,
# its sleep overshooting. What transitd adds is measured above it.
printf '{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"get_departures","arguments":{"stop":{"type":"id","value":"HSL:1999999"},"limit":5}}}' >"$tmp/one_stop.json"
curl -s -m 5 -o /dev/null -H 'Content-Type: application/json' \
  -H 'Accept: application/json, text/event-stream' -H 'MCP-Protocol-Version: 2025-11-25' \
  -H "Mcp-Session-Id: $uncached_session" --data-binary @"$tmp/one_stop.json" \
  "http://127.0.0.1:$uncached_port/mcp"
upstream_target=$(curl -s -m 5 -D - -o "$tmp/upstream.json" "$mock/__mock/last-request" \
  | tr -d '\r' | awk -F': ' 'tolower($1)=="x-mock-target"{print $2}')
grep -q 'HSL:1999999' "$tmp/upstream.json" && [ -n "$upstream_target" ] \
  || { echo "the mock recorded no departures request to replay" >&2; exit 1; }
sed -i 's/HSL:1999999/HSL:1%N%/' "$tmp/upstream.json"
openloop "the mock alone, +10 ms (transitd's departures request)" "$mock_port" - \
  "$tmp/upstream.json" 1000 32 "$upstream_target"
# A different stop per request: nothing shares an upstream call.
distinct=$tmp/distinct.json
printf '{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"get_departures","arguments":{"stop":{"type":"id","value":"HSL:1%%N%%"},"limit":5}}}' >"$distinct"
openloop "get_departures uncached, +10 ms at the mock" "$uncached_port" "$uncached_session" "$distinct" 1000 256
faults '{"latencyMs":0}'

# A disrupted plan_trip (relaxed query merged) with 100 ms upstream latency.
faults '{"latencyMs":100,"planDisruption":"delay"}'
disrupted=$(body plan_trip '{"origin":{"type":"coords","value":{"lat":60.1699,"lon":24.9384}},"destination":{"type":"coords","value":{"lat":60.2055,"lon":24.6559}},"includeDisruptionAlt":true}')
times=()
for _ in $(seq 1 15); do
  times+=("$(curl -s -o /dev/null -w '%{time_total}' -m 10 -H 'Content-Type: application/json' \
    -H 'Accept: application/json, text/event-stream' -H 'MCP-Protocol-Version: 2025-11-25' \
    -H "Mcp-Session-Id: $uncached_session" --data-binary @"$disrupted" \
    "http://127.0.0.1:$uncached_port/mcp")")
done
faults '{"latencyMs":0,"planDisruption":"none"}'
plan_median=$(median "${times[@]}")

echo
echo "ratios (this run):"
for c in 32 256; do
  ours=${rps_of[transitd/get_departures/cached/$c]}
  # shellcheck disable=SC2086 # the pairs' ratios, one word each
  echo "  cached get_departures / floor, c$c: $(median ${pairs_of[$c]}) (the median of adjacent pairs: ${pairs_of[$c]}) (target >= 0.60)"
  [ -n "$ts_pid" ] && echo "  cached get_departures / TS SDK stateless, c$c: $(ratio "$ours" "${rps_of[ts-sdk-stateless/get_departures/fixed/$c]}") (target >= 40)"
done
# The 40x target assumes the anchors' reference machine, where the floor
# made 71,408 req/s at 32 connections: 1.67x bare Node http, 67x the TS
# server. These two ratios tell how far this run's machine is from it.
if [ -n "$ts_pid" ] && [ -n "$node_pid" ]; then
  f=${rps_of[floor/get_departures/fixed/32]}
  echo "  floor / TS SDK stateless, c32: $(ratio "$f" "${rps_of[ts-sdk-stateless/get_departures/fixed/32]}") (the reference machine: 67.5)"
  echo "  floor / bare Node http, c32: $(ratio "$f" "${rps_of[node-http/get_departures/fixed/32]}") (the reference machine: 1.67)"
fi
ours="get_departures uncached, +10 ms at the mock"
alone="the mock alone, +10 ms (transitd's departures request)"
minus() { awk -v a="$1" -v b="$2" 'BEGIN{printf "%.2f", a-b}'; }
echo "  engine overhead at 256 connections, open loop 1000 req/s, over the mock's own latency: p50 $(minus "${rps_of[ol50:$ours]}" "${rps_of[ol50:$alone]}") ms (target < 1), p99 $(minus "${rps_of[ol99:$ours]}" "${rps_of[ol99:$alone]}") ms (target < 10)"
echo "    (over the nominal 10 ms alone: p50 $(minus "${rps_of[ol50:$ours]}" 10) ms, p99 $(minus "${rps_of[ol99:$ours]}" 10) ms)"
echo "  disrupted plan_trip, 100 ms upstream: median $(awk -v t="$plan_median" 'BEGIN{printf "%.0f", t*1000}') ms = $(ratio "$plan_median" 0.1) round trips (target < 1.3)"

if $soak; then
  echo
  echo "soak: 1,000,000 cached get_departures at 256 connections"
  total=0; first_rss=""; chunk=0
  while [ "$total" -lt 1000000 ]; do
    line=$(wrk -t2 -c256 -d10s -s "$root/bench/tools_call.lua" \
             "http://127.0.0.1:$cached_port/mcp" -- "$cached_session" "$departures" | grep RESULT)
    total=$(( total + $(field requests "$line") ))
    chunk=$(( chunk + 1 ))
    rss=$(awk '/VmRSS/ {printf "%.1f", $2 / 1024}' "/proc/$cached_pid/status")
    [ -n "$first_rss" ] || first_rss=$rss
    echo "  after $total calls: RSS $rss MB"
  done
  echo "  RSS after the first chunk $first_rss MB, after the last $rss MB; peak $(peak_rss_mb "$cached_pid") MB (target < 150)"
fi
