#!/usr/bin/env bash
# Installs transitd from BUILD_DIR into a scratch prefix, builds the
# embedding example against the installed package (find_package(transitd)),
# and runs it against a transit-mock-upstream.
#
#   run.sh BUILD_DIR
set -euo pipefail
build=$(cd "$1" && pwd)
here=$(cd "$(dirname "$0")" && pwd)
work=$(mktemp -d)
trap 'kill ${mock_pid:-} 2>/dev/null || true; wait 2>/dev/null || true; rm -rf "$work"' EXIT

cmake --install "$build" --prefix "$work/prefix" >/dev/null
test -f "$work/prefix/lib/cmake/transitd/transitdConfig.cmake"
test -f "$work/prefix/include/transitd/actors/engine.hpp"
test -f "$work/prefix/include/transitd/offline/raptor.hpp"
cmake -S "$here" -B "$work/build" -DCMAKE_PREFIX_PATH="$work/prefix" \
  -DCMAKE_BUILD_TYPE=Release >/dev/null
cmake --build "$work/build" -j2 >/dev/null

"$work/prefix/bin/transit-mock-upstream" --port 0 >"$work/mock.log" 2>&1 &
mock_pid=$!
port=""
for _ in $(seq 1 100); do
  port=$(sed -n 's|.*http://127.0.0.1:\([0-9][0-9]*\).*|\1|p' "$work/mock.log" | head -1)
  [ -n "$port" ] && break
  sleep 0.1
done
[ -n "$port" ] || { cat "$work/mock.log"; exit 1; }
timeout 60 "$work/build/embed_example" \
  "http://127.0.0.1:$port/routing/v2/hsl/gtfs/v1"

# The offline engine on the Caltrain fixture: no upstream, no key.
timeout 120 "$work/build/embed_offline" \
  "$here/../../tests/fixtures/upstream/gtfs/caltrain-2023-09/caltrain-gtfs.zip" \
  2023-11-07T08:00:00-08:00 37.7576 -122.3919 37.4434 -122.1647
