#!/usr/bin/env bash
# Configures and builds transitd. Usage: build.sh [release|sanitize]
#   release   optimised build in build/           (default)
#   sanitize  debug build with ASan+UBSan in build-sanitize/
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
flavour=${1:-release}
# Debug information is line tables only (-g1): enough for profiles, stack
# traces and sanitizer reports, and it roughly halves what the compiler and
# linker write for CAF's and Boost's templates.
case "$flavour" in
  # The benchmarks are built by the bench/ scripts that run them
  # (bench/lib.sh), not here: a test or run build does not wait for them.
  release)  dir="$root/build"; flags=(-DCMAKE_BUILD_TYPE=RelWithDebInfo "-DCMAKE_CXX_FLAGS_RELWITHDEBINFO=-O2 -g1 -DNDEBUG" -DTRANSITD_BUILD_BENCH=OFF) ;;
  sanitize) dir="$root/build-sanitize"; flags=(-DCMAKE_BUILD_TYPE=Debug "-DCMAKE_CXX_FLAGS_DEBUG=-g1" -DTRANSITD_SANITIZE=ON -DTRANSITD_BUILD_BENCH=OFF) ;;
  *) echo "build.sh: unknown flavour '$flavour' (release|sanitize)" >&2; exit 2 ;;
esac
cmake -S "$root" -B "$dir" "${flags[@]}" >/dev/null
# CAF translation units take up to 0.8 GB each: two at a time.
cmake --build "$dir" -j2
echo "$dir"
