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
export LSAN_OPTIONS=${LSAN_OPTIONS:-suppressions=$root/tests/lsan.supp}
export UBSAN_OPTIONS=${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1:suppressions=$root/tests/ubsan.supp}
cd "$dir"
skip=()
if [ "$flavour" = sanitize ]; then
  # Run once, optimised: the router's cross-checks against the reference
  # (pure computation, minutes under ASan, nothing a sanitizer adds to the
  # unit tests of the same code), the conformance suite and the 2.x client
  # (written in JavaScript: their subject is the protocol on the wire; the
  # 1.x client runs here too, against the sanitized daemon).
  # The embedding example builds an application against the installed
  # package: a compile check, run optimised.
  # The replicas behind HAProxy (processes and servers on loopback) and the
  # long fault-mapping runs (their faults are injected one by one in the
  # unit tests of the gate, the providers and the tools) run optimised only
  # too: the code they drive is under the sanitizers in its own tests. The
  # end-to-end runs over the recorded realtime feeds run in both.
  skip=(-E "RAPTOR equals a connection scan|RAPTOR on realtime equals|frequencies that expand without end|mcp_conformance|mcp_typescript_client_2x|embed_example_from_installed_package|replicas_behind_haproxy|e2e: fault run: mixed faults|e2e: every Helsinki tool maps upstream faults")
fi
ctest --output-on-failure -j2 --timeout 300 "${skip[@]}"
if [ "$flavour" = release ]; then
  bash "$root/scripts/fuzz.sh" --runs "${TRANSITD_FUZZ_RUNS:-20000}"
fi
