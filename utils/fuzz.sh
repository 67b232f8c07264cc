#!/usr/bin/env bash
# Runs the libFuzzer targets of test/fuzz (docs/Testing.md, "Fuzzing").
#
#   utils/fuzz.sh [--build-dir DIR] [--seconds N | --runs N] [--seed N] [TARGET...]
#
# TARGET is a fuzzer's short name (onnx, onnx-node, mlir, npy, module, and
# python: test/fuzz/python_fuzz.py on the ordinary build's Python package,
# build/python or MS_PYTHON_DIR; all of them by default). Each starts from a scratch copy of its committed seed
# corpus (test/fuzz/corpus/<target>), so the committed corpus only changes by
# hand. A crash, leak, timeout (10 s) or out-of-memory (4 GiB) input is saved
# as test/fuzz/regressions/<target>/<kind>-<sha1>, where the replay tests
# pick it up. Prints one line per target (executions, execs/s, crashers) and
# exits non-zero when any target found one. With --seed and --runs a run is
# repeatable (the CI smoke uses both).
set -uo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
build="$root/build-fuzz"
limit=(-max_total_time=60)
seed=0   # libFuzzer's 0: a fresh seed each run
targets=()
while [ $# -gt 0 ]; do
  case "$1" in
    --build-dir) build="$2"; shift 2 ;;
    --seconds) limit=(-max_total_time="$2"); shift 2 ;;
    --runs) limit=(-runs="$2"); shift 2 ;;
    --seed) seed="$2"; shift 2 ;;
    -h|--help) sed -n '2,12p' "$0"; exit 0 ;;
    -*) echo "fuzz.sh: unknown option '$1'" >&2; exit 2 ;;
    *) targets+=("$1"); shift ;;
  esac
done
[ ${#targets[@]} -gt 0 ] || targets=(onnx onnx-node mlir npy module python)
python_dir="${MS_PYTHON_DIR:-$root/build/python}"

work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
failed=0
for target in "${targets[@]}"; do
  if [ "$target" = python ]; then
    if [ ! -d "$python_dir/ms" ]; then
      echo "python: no Python package in $python_dir (utils/build.sh)"
      continue
    fi
    case "${limit[0]}" in
      # A Python case (trace, lower, sometimes compile) costs about as much
      # as a hundred inputs of the C++ targets.
      -runs=*) amount=(--cases $(( ${limit[0]#-runs=} / 100 + 1 ))) ;;
      *) amount=(--seconds "${limit[0]#-max_total_time=}") ;;
    esac
    [ "$seed" != 0 ] || seed_py="$(date +%s)"
    if ! PYTHONPATH="$python_dir" MS_CACHE_DIR= /usr/bin/python3 \
        "$root/test/fuzz/python_fuzz.py" "${amount[@]}" \
        --seed "${seed_py:-$seed}"; then
      failed=1
    fi
    continue
  fi
  binary="$build/bin/ms-fuzz-$target"
  if [ ! -x "$binary" ]; then
    echo "$target: no $binary (cmake --preset fuzz && cmake --build --preset fuzz)"
    failed=1
    continue
  fi
  corpus="$work/$target"
  regressions="$root/test/fuzz/regressions/$target"
  mkdir -p "$corpus" "$regressions"
  cp "$root/test/fuzz/corpus/$target/"* "$corpus/" 2>/dev/null || true
  log="$work/$target.log"
  before=$(ls "$regressions" | wc -l)
  start=$(date +%s%N)
  ASAN_OPTIONS=detect_leaks=1:allocator_may_return_null=1 \
  UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1 \
    "$binary" "$corpus" "${limit[@]}" -seed="$seed" -timeout=10 -rss_limit_mb=4096 \
      -malloc_limit_mb=4096 -print_final_stats=1 \
      -artifact_prefix="$regressions/" >"$log" 2>&1
  status=$?
  elapsed=$(( ($(date +%s%N) - start) / 1000000 ))  # ms
  runs=$(grep -E '^stat::number_of_executed_units' "$log" | tail -1 |
         awk '{print $2}')
  runs=${runs:-0}
  found=$(( $(ls "$regressions" | wc -l) - before ))
  rate=$(( runs * 1000 / (elapsed > 0 ? elapsed : 1) ))
  echo "$target: $runs executions in $(( elapsed / 1000 )) s ($rate/s), $found new crashers"
  if [ "$status" -ne 0 ] || [ "$found" -ne 0 ]; then
    failed=1
    grep -E 'ERROR: |SUMMARY: |Test unit written' "$log" | head -5 | sed 's/^/  /'
    cp "$log" "$build/fuzz-$target.log" &&
      echo "  full log: $build/fuzz-$target.log"
  fi
done
exit $failed
