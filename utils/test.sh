#!/usr/bin/env bash
# Sets up a fresh machine, builds ms and runs every test suite (target
# check-ms). Prints each runner's summary and a final "N passed, N failed"
# line; exits non-zero on any failure.
set -uo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
build="${MS_BUILD_DIR:-$root/build}"

bash "$root/utils/setup.sh" || { echo "setup failed"; exit 1; }
if ! bash "$root/utils/build.sh"; then
  echo "0 passed, 1 failed"
  echo "build failed"
  exit 1
fi

log="$(mktemp)"
trap 'rm -f "$log"' EXIT
cmake --build "$build" --target check-ms -- -k 0 2>&1 | tee "$log"
status=${PIPESTATUS[0]}

# lit prints "  Passed: N" / "  Failed: N" (and other result kinds).
count() {
  local n
  n=$(grep -E "^\s+$1\s*:" "$log" | tail -1 | sed -E 's/.*: *([0-9]+).*/\1/')
  echo "${n:-0}"
}
passed=$(count Passed)
failed=0
for kind in Failed Unresolved "Timed Out" "Unexpectedly Passed"; do
  failed=$((failed + $(count "$kind")))
done
skipped=$(( $(count Unsupported) + $(count "Expectedly Failed") ))
if [ "$status" -ne 0 ] && [ "$failed" -eq 0 ]; then
  failed=1
fi

# The GoogleTest suites also ran inside lit (one lit test each); print their
# own summaries too.
echo
for suite in ms-runtime-tests ms-compiler-unit-tests; do
  if [ -x "$build/bin/$suite" ]; then
    echo "$suite: $("$build/bin/$suite" --gtest_brief=1 2>&1 | grep -E '^\[  (PASSED|FAILED|SKIPPED) ' | tr '\n' ' ')"
  fi
done
echo "lit: $passed passed, $failed failed, $skipped skipped"
echo "$passed passed, $failed failed, $skipped skipped"
[ "$status" -eq 0 ] && [ "$failed" -eq 0 ]
