#!/usr/bin/env bash
# Three transitd replicas behind HAProxy, sharing a real PostgreSQL (saved
# variables) and a real Redis (quota, hold-offs, second cache level), all
# started here on 127.0.0.1 and stopped at the end. Shows:
#   1. a variable saved through one replica is read through every other;
#   2. SIGKILL of a replica under a save load loses no acknowledged save, and
#      the load balancer's other replicas answer every later call;
#   3. uncached load over the replicas with an upstream limit of R/s: the
#      mock upstream never sees more than R requests in one second;
#   4. 300 identical concurrent calls over the replicas: one upstream request;
#   5. Redis stopped: calls are still answered, each replica keeps to its
#      share of the quota, /readyz and /metrics say so; it reconnects;
#   6. PostgreSQL restarted under a save load: the saves land within their
#      deadline;
#   7. a crowd: 500 uncached calls, 50 at a time, against the upstream's
#      5/s: every call answered (a result or rate-limited at once), HAProxy
#      never marks a replica down.
# Prints the figures docs/operations.md quotes.
#
#   replicas.sh /path/to/transitd /path/to/transit-mock-upstream
# A part that is not installed skips the test (exit 77) outside CI, and
# fails it under CI=true (.ci/run installs them all).
set -euo pipefail
daemon=$1
mock=$2
rate=5
# The shared bucket (burst 1) grants at most rate + 1 in any second
# (docs/operations.md, Sizing): grants are spaced 1/rate apart, so a
# wall-clock second holds rate of them, and one more when the network
# delays the first request of that second more than the last.
bucket_most=$((rate + 1))

find_bin() { # name
  local found
  found=$(command -v "$1" 2>/dev/null || true)
  if [ -z "$found" ]; then
    for dir in /usr/sbin $(ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -rV); do
      if [ -x "$dir/$1" ]; then found="$dir/$1"; break; fi
    done
  fi
  echo "$found"
}
missing=()
for part in redis-server:redis-server haproxy:haproxy initdb:postgresql postgres:postgresql; do
  bin=${part%%:*}
  [ -n "$(find_bin "$bin")" ] || missing+=("$bin (Debian package ${part#*:})")
done
if [ "${#missing[@]}" -gt 0 ]; then
  if [ "${CI:-}" = true ]; then
    echo "FAIL: not installed: ${missing[*]}; scripts/install-deps.sh installs them" >&2
    exit 1
  fi
  echo "SKIP: not installed: ${missing[*]}; run bash scripts/install-deps.sh" >&2
  exit 77
fi

work=$(mktemp -d /tmp/transitd-replicas-XXXXXX)
pids=()
cleanup() {
  for pid in "${pids[@]}"; do kill -9 "$pid" 2>/dev/null || true; done
  [ -n "${pg_pid:-}" ] && kill -INT "$pg_pid" 2>/dev/null || true
  wait 2>/dev/null || true
  rm -rf "$work"
}
trap cleanup EXIT

free_port() { # a port nothing listens on
  local port
  while :; do
    port=$((20000 + RANDOM % 12000))
    (exec 3<>"/dev/tcp/127.0.0.1/$port") 2>/dev/null || { echo "$port"; return; }
  done
}
wait_port() { # port
  for _ in $(seq 1 200); do
    (exec 3<>"/dev/tcp/127.0.0.1/$1") 2>/dev/null && return 0
    sleep 0.05
  done
  echo "nothing listens on $1" >&2
  return 1
}
source "$(dirname "$0")/lib.sh"

# -- PostgreSQL: a throwaway cluster, as an unprivileged user ------------------
as_pg=()
if [ "$(id -u)" -eq 0 ]; then
  pg_user=postgres
  id postgres >/dev/null 2>&1 || pg_user=nobody
  chown "$pg_user" "$work"
  as_pg=(setpriv --reuid="$pg_user" --regid="$(id -g "$pg_user")" --clear-groups)
fi
"${as_pg[@]}" "$(find_bin initdb)" -D "$work/pg" -A trust -U postgres -E UTF8 \
  --locale=C --no-sync >"$work/initdb.log" 2>&1 || { cat "$work/initdb.log"; exit 1; }
pg_port=$(free_port)
start_pg() {
  "${as_pg[@]}" "$(find_bin postgres)" -D "$work/pg" -p "$pg_port" -k "$work" \
    -c listen_addresses=127.0.0.1 >>"$work/postgres.log" 2>&1 &
  pg_pid=$!
  wait_port "$pg_port"
}
stop_pg() { kill -INT "$pg_pid"; wait "$pg_pid" 2>/dev/null || true; pg_pid=; }
start_pg
store="postgresql://postgres@127.0.0.1:$pg_port/postgres"

# -- Redis ------------------------------------------------------------------------
redis_port=$(free_port)
start_redis() {
  "$(find_bin redis-server)" --port "$redis_port" --bind 127.0.0.1 --save '' \
    --appendonly no --dir "$work" >>"$work/redis.log" 2>&1 &
  redis_pid=$!
  pids+=("$redis_pid")
  wait_port "$redis_port"
}
start_redis

# -- the mock upstream and three replicas ----------------------------------------
"$mock" --port 0 >"$work/mock.log" 2>&1 &
pids+=($!)
mock_port=$(log_port "$work/mock.log" "http://127.0.0.1:")
mock_url="http://127.0.0.1:$mock_port"
ports=()
replica_pids=()
start_replica() { # index [port]
  local i=$1
  DIGITRANSIT_API_KEY=replica-test-key "$daemon" --port "${2:-0}" --data-dir "$work/r$i" \
    --store "$store" --redis "redis://127.0.0.1:$redis_port" --replicas 3 \
    --digitransit-routing-url "$mock_url/routing/v2/hsl/gtfs/v1" \
    --digitransit-geocoding-url "$mock_url/geocoding/v1" \
    --upstream-tps "digitransit-routing=$rate" \
    --upstream-burst "digitransit-routing=1" \
    --cache-departures-ttl-s 60 >"$work/replica$i.log" 2>&1 &
  replica_pids[$i]=$!
  pids+=("${replica_pids[$i]}")
  ports[$i]=$(log_port "$work/replica$i.log" "listening on http://127.0.0.1:")
}
for i in 1 2 3; do start_replica "$i"; done

# -- HAProxy in front ----------------------------------------------------------------
lb_port=$(free_port)
cat >"$work/haproxy.cfg" <<EOF
global
  maxconn 4096
defaults
  mode http
  timeout connect 2s
  timeout client 30s
  timeout server 30s
  option http-buffer-request
  retries 3
  option redispatch 1
  retry-on conn-failure empty-response response-timeout
frontend mcp
  bind 127.0.0.1:$lb_port
  default_backend replicas
backend replicas
  balance roundrobin
  option httpchk
  http-check send meth GET uri /healthz ver HTTP/1.1 hdr Host 127.0.0.1
  http-check expect status 200
  default-server inter 500ms fall 2 rise 1
  server r1 127.0.0.1:${ports[1]} check
  server r2 127.0.0.1:${ports[2]} check
  server r3 127.0.0.1:${ports[3]} check
EOF
"$(find_bin haproxy)" -f "$work/haproxy.cfg" -db >"$work/haproxy.log" 2>&1 &
pids+=($!)
wait_port "$lb_port"
lb="http://127.0.0.1:$lb_port/mcp"

meta='"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}'
call() { # url tool arguments [id]
  curl -sS -m 20 -H 'Content-Type: application/json' \
    -H 'Accept: application/json, text/event-stream' \
    -H 'MCP-Protocol-Version: 2026-07-28' -H 'Mcp-Method: tools/call' \
    -H "Mcp-Name: $2" \
    -d "{\"jsonrpc\":\"2.0\",\"id\":${4:-1},\"method\":\"tools/call\",\"params\":{\"name\":\"$2\",\"arguments\":$3,$meta}}" \
    "$1" 2>&1 || true
}
ok() { grep -q '"isError":false'; }
save() { # url key stop-id
  call "$1" save_user_variable "{\"key\":\"$2\",\"type\":\"stop\",\"value\":{\"stopId\":\"$3\"}}"
}
read_key() { # url key
  call "$1" get_user_variables "{\"key\":\"$2\"}"
}
mock_stat() { # field
  curl -sS -m 5 "$mock_url/__mock/stats" | sed -n "s/.*\"$1\":\([0-9]*\).*/\1/p"
}
fail() {
  echo "FAIL: $*" >&2
  for i in 1 2 3; do
    echo "== replica $i: shared state metrics"
    curl -sS -m 5 "http://127.0.0.1:${ports[$i]}/metrics" | grep -E 'shared|redis|fallbacks' || true
    echo "== replica $i: log"
    tail -20 "$work/replica$i.log"
  done >&2
  exit 1
}

# 1. Saved through one replica, read through the others.
save "http://127.0.0.1:${ports[1]}/mcp" home HSL:1040129 | ok || fail "save through replica 1"
for i in 2 3; do
  read_key "http://127.0.0.1:${ports[$i]}/mcp" home | grep -q 'HSL:1040129' \
    || fail "replica $i does not see the variable saved through replica 1"
done
echo "1. saved through replica 1, read through replicas 2 and 3"

# 2. SIGKILL a replica while saves run through the load balancer.
: >"$work/acked"
for n in $(seq 1 60); do
  if save "$lb" "load-$n" "HSL:$n" | ok; then echo "load-$n" >>"$work/acked"; fi
  if [ "$n" = 20 ]; then kill -9 "${replica_pids[2]}"; killed_at=$n; fi
done
acked=$(wc -l <"$work/acked")
call "$lb" get_user_variables '{}' >"$work/all.json"
lost=0
while read -r key; do
  grep -qF "\\\"$key\\\"" "$work/all.json" || { lost=$((lost + 1)); echo "lost $key" >&2; }
done <"$work/acked"
[ "$lost" = 0 ] || fail "$lost acknowledged saves lost"
failed_after=0
for n in $(seq 1 30); do
  read_key "$lb" home | grep -q 'HSL:1040129' || failed_after=$((failed_after + 1))
done
[ "$failed_after" = 0 ] || fail "$failed_after calls failed after the kill"
echo "2. replica 2 killed (SIGKILL) after save $killed_at of 60: $acked acknowledged, none lost; 30 later calls all answered"
start_replica 2 "${ports[2]}"  # back on its port: HAProxy's check lets it in again

# 3. Uncached load over the replicas with the upstream limited to $rate/s.
curl -sS -m 5 -d '{}' "$mock_url/__mock/reset" >/dev/null
start=$(date +%s)
seq 1 30 | xargs -P 10 -I@@ bash -c "$(declare -f call); meta='$meta'; call '$lb' get_departures '{\"stop\":{\"type\":\"id\",\"value\":\"HSL:20@@\"}}' @@ >/dev/null"
elapsed=$(( $(date +%s) - start ))
sent=$(mock_stat requests)
most=$(mock_stat maxPerSecond)
[ "$most" -le "$bucket_most" ] || fail "the mock saw $most requests in one second (limit $rate, burst 1)"
[ "$sent" -ge 10 ] || fail "only $sent upstream requests: the load did not reach the upstream"
echo "3. 30 uncached calls over 3 replicas, limit $rate/s: $sent upstream requests in ${elapsed}s, at most $most in any second"

# 4. 300 identical concurrent calls: one upstream request. The upstream
# takes 1.5 s to answer, so every call arrives while the first is in flight.
curl -sS -m 5 -d '{}' "$mock_url/__mock/reset" >/dev/null
curl -sS -m 5 -d '{"latencyMs":1500}' "$mock_url/__mock/faults" >/dev/null
mkdir -p "$work/burst"
seq 1 300 | xargs -P 300 -I@@ bash -c "$(declare -f call); meta='$meta'; call '$lb' get_departures '{\"stop\":{\"type\":\"id\",\"value\":\"HSL:1040129\"}}' @@ >'$work/burst/@@.json'"
curl -sS -m 5 -d '{}' "$mock_url/__mock/faults" >/dev/null
answered=$( (grep -l '"isError":false' "$work"/burst/*.json || true) | wc -l)
upstream=$(mock_stat requests)
[ "$answered" = 300 ] || fail "$answered of 300 identical calls answered"
[ "$upstream" = 1 ] || fail "300 identical calls made $upstream upstream requests"
echo "4. 300 identical concurrent calls over 3 replicas (upstream answering in 1.5 s): $answered answered, $upstream upstream request"

# 5. Redis stopped: answered on local caches, each replica on its share.
kill -9 "$redis_pid"
curl -sS -m 5 -d '{}' "$mock_url/__mock/reset" >/dev/null
down_start=$(date +%s%N)
seq 1 30 | xargs -P 6 -I@@ bash -c "$(declare -f call); meta='$meta'; call '$lb' get_departures '{\"stop\":{\"type\":\"id\",\"value\":\"HSL:30@@\"}}' @@ >>'$work/down.json'"
answered=$( (grep -o '"isError":false' "$work/down.json" || true) | wc -l)
limited=$( (grep -o '"isError":true' "$work/down.json" || true) | wc -l)
down_ms=$(( ($(date +%s%N) - down_start) / 1000000 ))
most=$(mock_stat maxPerSecond)
sent=$(mock_stat requests)
[ $((answered + limited)) -ge 30 ] || fail "with Redis down only $answered answered and $limited refused of 30"
[ "$limited" = 0 ] || grep -q 'rate-limited' "$work/down.json" \
  || fail "with Redis down, calls failed otherwise than rate-limited"
# Each replica keeps to floor(rate/3) whole requests a second, its bucket
# starting empty when Redis left: no second sees more than the rate.
share=$(( rate / 3 ))
[ "$most" -le "$rate" ] || fail "with Redis down the mock saw $most in one second (quota $rate)"
[ $((sent * 1000)) -le $((rate * down_ms + 3 * 1000)) ] \
  || fail "with Redis down $sent upstream requests in $down_ms ms: over $rate/s"
ready=$(curl -sS -m 10 "http://127.0.0.1:${ports[1]}/readyz")
echo "$ready" | grep -q '"redis":"unreachable' || fail "/readyz does not say Redis is unreachable: $ready"
echo "$ready" | grep -q '"status":"ready"' || fail "/readyz not ready with Redis down: $ready"
# The gauge comes from the REDIS actor, which may be inside a command's
# timeout when asked on a loaded machine: look again for up to 5 s.
down_seen=false
for _ in $(seq 1 25); do
  if curl -sS -m 10 "http://127.0.0.1:${ports[1]}/metrics" \
       | grep -q '^transitd_redis_up{link="quota"} 0'; then
    down_seen=true
    break
  fi
  sleep 0.2
done
$down_seen || fail "/metrics does not show transitd_redis_up 0"
start_redis
for _ in $(seq 1 100); do
  curl -sS -m 10 "http://127.0.0.1:${ports[1]}/readyz" | grep -q '"redis":"ok"' && break
  sleep 0.1
done
curl -sS -m 10 "http://127.0.0.1:${ports[1]}/readyz" | grep -q '"redis":"ok"' || fail "no reconnection to Redis"
echo "5. Redis down: 30 calls, $answered answered, $limited refused as rate-limited; $sent upstream requests in $down_ms ms, at most $most in any second (each replica on $share per second); /readyz said so; reconnected"

# 6. PostgreSQL restarted while saves run.
: >"$work/pg-acked"
( for n in $(seq 1 30); do
    if save "$lb" "pg-$n" "HSL:$n" | ok; then echo "pg-$n" >>"$work/pg-acked"; fi
  done ) &
saver=$!
sleep 0.5
stop_pg
sleep 1
start_pg
wait "$saver"
acked=$(wc -l <"$work/pg-acked")
[ "$acked" = 30 ] || fail "$acked of 30 saves landed across the PostgreSQL restart"
echo "6. PostgreSQL restarted (1 s down) under 30 saves: all 30 landed"

# 7. A crowd of uncached calls far over the upstream's quota. Calls whose
# outbound token cannot come before their deadline are refused at once;
# none holds an HTTP thread while it waits, so /healthz stays answered and
# HAProxy keeps every replica in.
curl -sS -m 5 -d '{}' "$mock_url/__mock/reset" >/dev/null
down_before=$(grep -c "is DOWN" "$work/haproxy.log" || true)
mkdir -p "$work/crowd"
crowd_start=$(date +%s%N)
seq 1 500 | xargs -P 50 -I@@ curl -sS -m 30 -o "$work/crowd/@@" -w '%{http_code}\n' \
  -H 'Content-Type: application/json' -H 'Accept: application/json, text/event-stream' \
  -H 'MCP-Protocol-Version: 2026-07-28' -H 'Mcp-Method: tools/call' -H 'Mcp-Name: get_departures' \
  -d "{\"jsonrpc\":\"2.0\",\"id\":@@,\"method\":\"tools/call\",\"params\":{\"name\":\"get_departures\",\"arguments\":{\"stop\":{\"type\":\"id\",\"value\":\"HSL:7@@\"}},$meta}}" \
  "$lb" >"$work/crowd-status" 2>&1 || true
crowd_ms=$(( ($(date +%s%N) - crowd_start) / 1000000 ))
not_200=$(grep -vc '^200$' "$work/crowd-status" || true)
answered=$( (grep -l '"isError":false' "$work/crowd"/* 2>/dev/null || true) | wc -l)
limited=$( (grep -l 'rate-limited' "$work/crowd"/* 2>/dev/null || true) | wc -l)
down_after=$(grep -c "is DOWN" "$work/haproxy.log" || true)
[ "$not_200" = 0 ] || fail "the crowd got $not_200 answers other than HTTP 200: $(sort "$work/crowd-status" | uniq -c | tr '\n' ' ')"
[ $((answered + limited)) = 500 ] || fail "the crowd: $answered results and $limited rate-limited of 500"
[ "$down_after" = "$down_before" ] || fail "HAProxy marked a replica down under the crowd: $(grep 'is DOWN' "$work/haproxy.log" | tail -2)"
most=$(mock_stat maxPerSecond)
[ "$most" -le "$bucket_most" ] || fail "the crowd pushed the upstream to $most in one second (limit $rate, burst 1)"
echo "7. a crowd of 500 uncached calls, 50 at a time, in $crowd_ms ms: $answered results, $limited rate-limited at once, no other answer; no replica marked down; the upstream at most $(mock_stat maxPerSecond) in any second"
echo "PASS"
