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
  cp "$here/package.json" "$here"/*.mjs "$work/"
  if [ ! -d "$work/node_modules/@modelcontextprotocol/sdk" ] \
     || [ ! -d "$work/node_modules/@modelcontextprotocol/client" ]; then
    (cd "$work" && npm install --no-audit --no-fund --loglevel=error >/dev/null)
  fi
) 9>"$work/.install.lock"

# shellcheck source=../start_daemon.sh
source "$here/../start_daemon.sh"
start_daemon "$daemon"

cd "$work"
timeout 180 node "$client" "http://127.0.0.1:$port/mcp" "$daemon"
