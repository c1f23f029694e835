#!/usr/bin/env bash
# Builds the libFuzzer targets with clang (tests/fuzz) and runs each one on
# its seed corpus for a bounded number of executions.
# Usage: fuzz.sh [--runs N] [--jobs J] [--only TARGET]
#   --runs N     executions per target (default 20000: the CI smoke run)
#   --only NAME  run one target (e.g. mcp_endpoint)
# Corpora grow in build-fuzz/corpus/TARGET; findings (crash-*, leak-*,
# timeout-*) land in build-fuzz/findings/ and fail the run.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
runs=20000
only=""
while [ $# -gt 0 ]; do
  case "$1" in
    --runs) runs=$2; shift 2 ;;
    --only) only=$2; shift 2 ;;
    *) echo "fuzz.sh: unknown argument '$1'" >&2; exit 2 ;;
  esac
done
dir="$root/build-fuzz"
fixtures="$root/tests/fixtures/upstream"
CC=clang CXX=clang++ cmake -S "$root" -B "$dir" -DCMAKE_BUILD_TYPE=Debug \
  -DTRANSITD_FUZZ=ON -DTRANSITD_BUILD_TESTS=OFF -DTRANSITD_BUILD_BENCH=OFF \
  >/dev/null
cmake --build "$dir" -j2 --target transitd_fuzzers

# Seeds: our own JSON-RPC bodies, and the recorded upstream payloads.
seed() { # target, files...
  local target=$1; shift
  mkdir -p "$dir/corpus/$target"
  for f in "$@"; do
    [ -f "$f" ] && cp "$f" "$dir/corpus/$target/seed-$(basename "$f")"
  done
  return 0
}
routing="$fixtures/digitransit-routing"
seed mcp_endpoint "$root"/tests/fuzz/seeds/mcp_endpoint/*
seed oauth_token "$root"/tests/fuzz/seeds/oauth_token/*
seed request_framing "$root"/tests/fuzz/seeds/request_framing/*
seed timetable_snapshot "$root"/tests/fuzz/seeds/timetable_snapshot/*
seed gtfs_rt "$fixtures"/gtfs/*/*.pb
seed digitransit_departures "$routing"/recorded-hsl/*departures*.json \
  "$routing"/docs-examples/docs-stop-by-id.response.json \
  "$routing"/otp-test-expectations/canceled-trips.response.json \
  "$routing"/otp-test-expectations/realtime-trip.response.json
seed digitransit_stops "$routing"/otp-test-expectations/nearest.response.json \
  "$routing"/otp-test-expectations/stops.response.json \
  "$routing"/docs-examples/docs-stopsByRadius-page*.response.json \
  "$routing"/written/*alerts*.response.json
seed digitransit_plan "$routing"/recorded-hsl/*plan*.json \
  "$routing"/otp-test-expectations/plan*.response.json
seed digitransit_geocoding "$fixtures"/digitransit-geocoding/recorded/*.json
mkdir -p "$dir/corpus/tfl_journey"
for f in "$fixtures"/tfl-journey/recorded/*.json; do
  [ -f "$f" ] || continue
  case "$f" in *.300.json) status='\x01' ;; *) status='\x00' ;; esac
  { printf "$status"; cat "$f"; } > "$dir/corpus/tfl_journey/seed-$(basename "$f")"
done
mkdir -p "$dir/corpus/tfl_station_data"
for d in "$fixtures"/tfl-station-data/tfl-stationdata-detailed-*/; do
  [ -f "$d/Stations.csv" ] || continue
  { head -c 4000 "$d/Stations.csv"; printf '\0'; head -c 4000 "$d/Toilets.csv"; } \
    > "$dir/corpus/tfl_station_data/seed-$(basename "$d")"
done

mkdir -p "$dir/corpus/gtfs_feed"
for zip in "$fixtures"/gtfs/*/*.zip; do
  [ -f "$zip" ] || continue
  for f in agency stops routes trips stop_times calendar calendar_dates \
           frequencies transfers feed_info translations shapes; do
    { unzip -p "$zip" "$f.txt" 2>/dev/null || true; } | head -c 3000
    printf '\0'
  done > "$dir/corpus/gtfs_feed/seed-$(basename "$zip" .zip)"
done

mkdir -p "$dir/findings"
status=0
for target in mcp_endpoint digitransit_departures digitransit_stops \
              digitransit_plan digitransit_geocoding tfl_journey \
              tfl_station_data gtfs_feed oauth_token gtfs_rt tfl_network \
              digitransit_network \
              request_framing timetable_snapshot; do
  [ -n "$only" ] && [ "$only" != "$target" ] && continue
  mkdir -p "$dir/corpus/$target" # targets without seeds start empty
  echo "== fuzz_$target: $runs runs"
  if ! ASAN_OPTIONS=detect_leaks=1 \
       "$dir/tests/fuzz/fuzz_$target" "$dir/corpus/$target" \
       -runs="$runs" -max_len=65536 -timeout=10 -rss_limit_mb=2048 \
       -artifact_prefix="$dir/findings/$target-" -print_final_stats=1 \
       2>"$dir/fuzz_$target.log"; then
    echo "fuzz_$target FAILED: see $dir/fuzz_$target.log and $dir/findings/"
    tail -30 "$dir/fuzz_$target.log"
    status=1
  fi
  grep -E "stat::number_of_executed_units|Done [0-9]+ runs" \
    "$dir/fuzz_$target.log" | tail -2 || true
done
exit $status
