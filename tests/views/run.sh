#!/usr/bin/env bash
# The views' browser tests (views.mjs): a transitd on the New York subway
# and the hostile feed, on a simulated clock, driven through the official
# MCP Apps host bridge in headless Chromium. Installs the pinned npm
# packages into the build tree on first use.
#
#   run.sh /path/to/transitd
set -euo pipefail
daemon=$1
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
work="$(cd "$(dirname "$daemon")" && pwd)/views-test"
mkdir -p "$work"
cp "$here/package.json" "$here/views.mjs" "$here/host.html" "$work/"
if [ ! -d "$work/node_modules/@modelcontextprotocol/ext-apps" ] \
   || [ ! -d "$work/node_modules/playwright-core" ] \
   || [ ! -d "$work/node_modules/pixelmatch" ]; then
  (cd "$work" && npm install --no-audit --no-fund --loglevel=error >/dev/null)
fi
command -v chromium >/dev/null || { echo "chromium is missing: bash scripts/install-deps.sh"; exit 1; }

# shellcheck source=../e2e/start_daemon.sh
source "$root/tests/e2e/start_daemon.sh"
start_daemon "$daemon" \
  --gtfs "nyc=$root/tests/fixtures/upstream/gtfs/mta-subway-2026-09/mta-subway-gtfs.zip" \
  --gtfs "hostile=$root/tests/fixtures/gtfs/hostile" \
  --clock 2026-09-15T10:51:00-04:00
# 10:51: no train leaves Times Sq-42 St from 10:50:30 to 10:54:30 on a
# weekday, so a board asked for within three minutes of the start is the
# same board (its screenshot is compared).
# Both feeds loaded before the first call.
for _ in $(seq 1 300); do
  [ "$(grep -c 'loaded in' "$daemon_log")" -ge 2 ] && break
  sleep 0.1
done

cd "$work"
timeout 300 node views.mjs "http://127.0.0.1:$port/mcp" \
  "$root/docs/tools/views" "$work/screenshots"
