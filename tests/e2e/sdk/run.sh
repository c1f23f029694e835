#!/usr/bin/env bash
# Runs an interop client (client.mjs: the official MCP TypeScript SDK 1.x;
# client2.mjs: @modelcontextprotocol/client 2.x) against a transitd binary
# in demo mode on a free loopback port, and over stdio (the client launches
# the binary). Installs the pinned packages from the npm registry into the
# build tree on first use.
#
#   run.sh /path/to/transitd [client.mjs|client2.mjs]
set -euo pipefail
daemon=$1
client=${2:-client.mjs}
here=$(cd "$(dirname "$0")" && pwd)
work="$(dirname "$daemon")/sdk-interop"
mkdir -p "$work"
(
  # Both interop tests may start at once: one installs, the other waits.
  flock 9
  cp "$here/package.json" "$here/client.mjs" "$here/client2.mjs" "$work/"
  if [ ! -d "$work/node_modules/@modelcontextprotocol/sdk" ] \
     || [ ! -d "$work/node_modules/@modelcontextprotocol/client" ]; then
    (cd "$work" && npm install --no-audit --no-fund --loglevel=error >/dev/null)
  fi
) 9>"$work/.install.lock"

log=$(mktemp)
"$daemon" --demo --port 0 --data-dir :memory: >"$log" 2>&1 &
pid=$!
trap 'kill $pid 2>/dev/null || true; wait $pid 2>/dev/null || true; rm -f "$log"' EXIT

port=""
for _ in $(seq 1 100); do
  port=$(sed -n 's|.*listening on http://127.0.0.1:\([0-9]*\)/mcp.*|\1|p' "$log")
  [ -n "$port" ] && break
  kill -0 $pid 2>/dev/null || { cat "$log"; echo "transitd exited early"; exit 1; }
  sleep 0.1
done
[ -n "$port" ] || { cat "$log"; echo "transitd did not start"; exit 1; }

cd "$work"
timeout 180 node "$client" "http://127.0.0.1:$port/mcp" "$daemon"
