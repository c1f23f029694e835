#!/usr/bin/env bash
# Runs the official MCP conformance suite (npm
# @modelcontextprotocol/conformance, pinned in package.json) against a
# transitd binary in demo mode: the server requirements of 2026-07-28 and of
# 2025-11-25, each against its expected-failures file (every entry says
# why). Prints each run's summary; fails on an unexpected failure or on an
# expected one that now passes.
#
#   run.sh /path/to/transitd
set -euo pipefail
daemon=$1
here=$(cd "$(dirname "$0")" && pwd)
work="$(dirname "$daemon")/conformance"
mkdir -p "$work"
cp "$here"/package.json "$here"/*.mjs "$here"/*.yml "$work/"
if [ ! -d "$work/node_modules/@modelcontextprotocol/conformance" ]; then
  (cd "$work" && npm install --no-audit --no-fund --loglevel=error >/dev/null)
fi

# shellcheck source=../start_daemon.sh
source "$here/../start_daemon.sh"
start_daemon "$daemon"

cd "$work"
status=0
for revision in 2026-07-28 2025-11-25; do
  out=$(mktemp)
  set +e
  timeout 400 node --import ./shim.mjs \
    node_modules/@modelcontextprotocol/conformance/dist/index.js server \
    --url "http://localhost:$port/mcp" --requirements "$revision" \
    --expected-failures "expected-failures-$revision.yml" >"$out" 2>&1
  code=$?
  set -e
  echo "== conformance --requirements $revision: exit $code"
  sed -n '/=== SUMMARY ===/,$p' "$out"
  [ "$code" -eq 0 ] || { status=1; grep -iE "unexpected|stale|error" "$out" | head -40; }
  rm -f "$out"
done
exit $status
