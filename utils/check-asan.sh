#!/usr/bin/env bash
# The sanitizer check (target check-ms-asan; docs/Testing.md, "Sanitizers"):
# builds the asan preset (clang-22, -fsanitize=address,undefined, libFuzzer
# targets) into build-asan/, runs the unit tests and the lit suite there
# (the ONNX conformance runs excepted: they repeat the same converters over
# ~1,700 models and take too long under ASan), then fuzzes each target for
# MS_FUZZ_RUNS inputs (default 100000) from the fixed seed MS_FUZZ_SEED
# (default 1), so that the smoke is repeatable; longer, fresh-seeded runs
# are utils/fuzz.sh's. Exits non-zero on any failure, sanitizer report or
# new crasher.
set -uo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
build="$root/build-asan"
runs="${MS_FUZZ_RUNS:-100000}"
seed="${MS_FUZZ_SEED:-1}"
cd "$root"

if [ ! -f "$build/build.ninja" ]; then
  cmake --preset asan >/dev/null || { echo "asan: configure failed"; exit 1; }
fi
if ! cmake --build "$build"; then
  echo "asan: build failed"
  exit 1
fi

# Leaks are errors; the process exits at the first report.
export ASAN_OPTIONS=detect_leaks=1:halt_on_error=1:abort_on_error=0
export UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1
status=0
LIT_FILTER_OUT="onnx/conformance" cmake --build "$build" --target check-ms -- -k 0 \
  || status=1
[ "$status" -eq 0 ] || echo "asan: lit suite failed"
if ! bash "$root/utils/fuzz.sh" --build-dir "$build" --runs "$runs" --seed "$seed"; then
  echo "asan: a fuzzer found a crasher (saved under test/fuzz/regressions/)"
  status=1
fi
[ "$status" -eq 0 ] && echo "asan: all passed"
exit $status
