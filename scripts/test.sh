#!/usr/bin/env bash
# Installs the dependencies, builds, and runs every test (Catch2 cases via
# CTest, one CTest entry each, plus the MCP TypeScript SDK interop test),
# then a bounded libFuzzer smoke run of every fuzz target (scripts/fuzz.sh).
#   scripts/test.sh             optimised build, then the fuzz smoke run
#   scripts/test.sh --sanitize  the same suite under AddressSanitizer + UBSan
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
flavour=release
[ "${1:-}" = "--sanitize" ] && flavour=sanitize
bash "$root/scripts/install-deps.sh"
dir=$(bash "$root/scripts/build.sh" "$flavour" | tail -n 1)
export ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=1:abort_on_error=1}
export UBSAN_OPTIONS=${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1:suppressions=$root/tests/ubsan.supp}
cd "$dir"
ctest --output-on-failure -j2 --timeout 300
if [ "$flavour" = release ]; then
  bash "$root/scripts/fuzz.sh" --runs "${TRANSITD_FUZZ_RUNS:-20000}"
fi
