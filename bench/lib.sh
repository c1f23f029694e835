# Helpers of the benchmark scripts (sourced; `root` is the repository).

# Builds `targets` in `build` with the benchmarks configured in: the test
# and run builds (scripts/build.sh) leave them out, so every script builds
# what it measures, incrementally, before it measures.
bench_build() { # build-dir target...
  local dir=$1
  shift
  cmake -S "$root" -B "$dir" -DTRANSITD_BUILD_BENCH=ON >/dev/null
  cmake --build "$dir" -j2 --target "$@" >/dev/null
}
