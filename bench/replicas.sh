#!/usr/bin/env bash
# The per-call cost of the state replicas share through Redis, against the
# local state, in one run (bench/shared_bench.cpp). Starts its own
# redis-server on 127.0.0.1 (Debian package redis-server) and stops it.
#
#   bash bench/replicas.sh [--build DIR] [--calls N]
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
build=$root/build
calls=5000
while [ $# -gt 0 ]; do
  case $1 in
    --build) build=$(cd "$2" && pwd); shift 2 ;;
    --calls) calls=$2; shift 2 ;;
    *) echo "unknown option $1" >&2; exit 2 ;;
  esac
done
command -v redis-server >/dev/null || { echo "redis-server is not installed: bash scripts/install-deps.sh" >&2; exit 1; }
bench=$build/bench/transitd-shared-bench
source "$root/bench/lib.sh"
bench_build "$build" transitd-shared-bench
work=$(mktemp -d)
port=$((20000 + RANDOM % 12000))
redis-server --port "$port" --bind 127.0.0.1 --save '' --appendonly no \
  --dir "$work" >"$work/redis.log" 2>&1 &
redis=$!
trap 'kill $redis 2>/dev/null || true; wait 2>/dev/null || true; rm -rf "$work"' EXIT
for _ in $(seq 1 100); do
  (exec 3<>"/dev/tcp/127.0.0.1/$port") 2>/dev/null && break
  sleep 0.05
done
echo "## Shared state through Redis ($(redis-server --version | cut -d' ' -f3)), $calls calls per row"
"$bench" --redis "redis://127.0.0.1:$port" --calls "$calls"
