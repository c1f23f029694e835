#!/usr/bin/env bash
# Writes the GraphQL request bodies the Digitransit routing provider builds
# and validates them against the recorded HSL schema with graphql-js
# (installed from the npm registry into the build tree on first use).
#
#   run.sh /path/to/transitd-graphql-bodies /path/to/schema.graphqls
set -euo pipefail
bodies_tool=$1
schema=$2
here=$(cd "$(dirname "$0")" && pwd)
work="$(dirname "$bodies_tool")/graphql-check"
mkdir -p "$work/bodies"
cp "$here/package.json" "$here/validate.mjs" "$work/"
if [ ! -d "$work/node_modules/graphql" ]; then
  (cd "$work" && npm install --no-audit --no-fund --loglevel=error >/dev/null)
fi
rm -f "$work"/bodies/*.json
"$bodies_tool" "$work/bodies"
cd "$work"
timeout 60 node validate.mjs "$schema" "$work/bodies"
