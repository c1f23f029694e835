#!/usr/bin/env bash
# Installs every system dependency of transitd from Debian 12 packages.
# Idempotent; runs as root without prompts, or through sudo otherwise.
set -euo pipefail

packages=(
  build-essential cmake pkg-config git ca-certificates
  libcaf-dev                     # CAF 0.17.6 (actors)
  libboost-json1.81-dev          # Boost.JSON 1.81
  libboost-url1.81-dev           # Boost.URL 1.81 (upstream URLs)
  libcli11-dev                   # CLI11 2.1 (flags and --help)
  libcpp-httplib-dev             # cpp-httplib 0.11 (HTTP server/client)
  libssl-dev zlib1g-dev libbrotli-dev  # what cpp-httplib's pkg-config pulls in
  libspdlog-dev libfmt-dev       # logging
  catch2                         # Catch2 v2 tests
  libsqlite3-dev                 # user variable store (embedded default)
  libpqxx-dev                    # user variable store in PostgreSQL (libpqxx 6.4)
  libhiredis-dev                 # shared quota and cache in Redis (hiredis 0.14)
  postgresql redis-server haproxy  # the replicas end-to-end test starts them
  libzip-dev                     # GTFS feeds (zip archives)
  libxxhash-dev                  # timetable snapshots: the sources' hash, checksums
  libprotobuf-dev protobuf-compiler  # GTFS-realtime (proto/gtfs_realtime.proto)
  libjemalloc-dev                # the daemon's allocator
  libhowardhinnant-date-dev tzdata  # IANA time zones (Europe/Helsinki offsets)
  curl wrk                       # smoke checks and load benchmarks
  unzip                          # fuzz seeds from the GTFS fixtures
  python3                        # tests/layers.py (the include layers)
  clang libclang-rt-14-dev       # libFuzzer targets (tests/fuzz)
  chromium fonts-dejavu-core     # the views' browser tests (tests/views)
)

if [ "$(id -u)" -eq 0 ]; then
  as_root=()
else
  as_root=(sudo)
fi

missing=()
# Node.js runs the MCP TypeScript SDK interoperability test. Machines that
# already carry a Node.js (e.g. from NodeSource) keep it; others get Debian's.
if ! command -v npm >/dev/null 2>&1; then
  packages+=(nodejs npm)
fi
for p in "${packages[@]}"; do
  if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed"; then
    missing+=("$p")
  fi
done

if [ "${#missing[@]}" -eq 0 ]; then
  echo "install-deps: all ${#packages[@]} packages already installed"
  exit 0
fi

echo "install-deps: installing ${missing[*]}"
export DEBIAN_FRONTEND=noninteractive
"${as_root[@]}" apt-get update -q
"${as_root[@]}" apt-get install -y -q --no-install-recommends "${missing[@]}"
