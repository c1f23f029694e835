#!/usr/bin/env bash
# Graceful shutdown of the real daemon binary: SIGTERM while a slow call
# and a streamed one (SSE) are in flight. Both still get their answers, the
# process exits 0, and the saved variables are in the database file (WAL
# checkpointed on close).
#
#   shutdown.sh /path/to/transitd /path/to/transit-mock-upstream
set -euo pipefail
daemon=$1
mock=$2
work=$(mktemp -d)
cleanup() {
  kill "${mock_pid:-}" "${daemon_pid:-}" 2>/dev/null || true
  wait 2>/dev/null || true
  rm -rf "$work"
}
trap cleanup EXIT

source "$(dirname "$0")/lib.sh"

"$mock" --port 0 >"$work/mock.log" 2>&1 &
mock_pid=$!
mock_port=$(log_port "$work/mock.log" "http://127.0.0.1:")
"$daemon" --port 0 --data-dir "$work/data" --shutdown-grace-ms 5000 \
  --digitransit-routing-url "http://127.0.0.1:$mock_port/routing/v2/hsl/gtfs/v1" \
  --digitransit-geocoding-url "http://127.0.0.1:$mock_port/geocoding/v1" \
  >"$work/daemon.log" 2>&1 &
daemon_pid=$!
port=$(log_port "$work/daemon.log" "listening on http://127.0.0.1:")
url="http://127.0.0.1:$port/mcp"

post() { # session body
  curl -sS -m 20 -H 'Content-Type: application/json' \
    -H 'Accept: application/json, text/event-stream' \
    -H 'MCP-Protocol-Version: 2025-11-25' ${1:+-H "Mcp-Session-Id: $1"} \
    -d "$2" "$url"
}

session=$(curl -sS -m 10 -D - -o /dev/null -H 'Content-Type: application/json' \
  -H 'Accept: application/json, text/event-stream' \
  -d '{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"shutdown-test","version":"1"}}}' \
  "$url" | tr -d '\r' | sed -n 's/^[Mm]cp-[Ss]ession-[Ii]d: //p')
[ -n "$session" ] || { echo "no session"; exit 1; }
post "$session" '{"jsonrpc":"2.0","method":"notifications/initialized"}' >/dev/null
saved=$(post "$session" '{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"save_user_variable","arguments":{"key":"kept-through-shutdown","type":"stop","value":{"stopId":"HSL:1040129"}}}}')
echo "$saved" | grep -q '"isError":false' || { echo "save failed: $saved"; exit 1; }

# Every upstream call now takes 1.5 s.
curl -sS -m 5 -d '{"latencyMs":1500}' "http://127.0.0.1:$mock_port/__mock/faults" >/dev/null
post "$session" '{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"get_departures","arguments":{"stop":{"type":"id","value":"HSL:1040129"}}}}' \
  >"$work/slow.json" &
slow_pid=$!
# And one answered as an event stream (progress), which the event loop
# sends, not a worker: it too is answered before the daemon exits.
post "$session" '{"jsonrpc":"2.0","id":4,"method":"tools/call","params":{"name":"get_departures","arguments":{"stop":{"type":"id","value":"HSL:1040130"}},"_meta":{"progressToken":"p"}}}' \
  >"$work/streamed.txt" &
streamed_pid=$!
sleep 0.5
kill -TERM "$daemon_pid"
sleep 0.2
# No new connections once shutting down.
if curl -sS -m 2 -o /dev/null "$url" 2>/dev/null; then
  echo "the daemon still accepted a connection after SIGTERM"; exit 1
fi
wait "$slow_pid"
grep -q '"isError":false' "$work/slow.json" || {
  echo "the call in flight did not finish:"; cat "$work/slow.json"; exit 1; }
wait "$streamed_pid"
grep -q 'notifications/progress' "$work/streamed.txt" \
  && grep -q '"id":4,"result".*"isError":false' "$work/streamed.txt" || {
  echo "the streamed call in flight did not finish:"; cat "$work/streamed.txt"; exit 1; }
status=0
wait "$daemon_pid" || status=$?
daemon_pid=
[ "$status" -eq 0 ] || { cat "$work/daemon.log"; echo "exit status $status"; exit 1; }
grep -q "variable store closed" "$work/daemon.log" || {
  cat "$work/daemon.log"; echo "the store was not closed"; exit 1; }
[ ! -s "$work/data/variables.sqlite3-wal" ] || { echo "WAL not checkpointed"; exit 1; }
grep -q "kept-through-shutdown" "$work/data/variables.sqlite3" || {
  echo "the saved variable is not in the database file"; exit 1; }
echo "graceful shutdown: in-flight calls answered (JSON and SSE), exit 0, store flushed"
