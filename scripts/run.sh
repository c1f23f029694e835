#!/usr/bin/env bash
# Installs the dependencies, builds, and starts the daemon. With no flags it
# runs on the embedded demo upstream (generated data, marked demo-data) on
# http://127.0.0.1:8080/mcp. Flags go to transitd (see --help).
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
bash "$root/scripts/install-deps.sh"
dir=$(bash "$root/scripts/build.sh" release | tail -n 1)
if [ "$#" -eq 0 ]; then
  set -- --demo
fi
exec "$dir/transitd" "$@"
