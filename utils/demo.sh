#!/usr/bin/env bash
# Sets up a fresh machine, builds ms and runs the main job on the bundled
# example: examples/mlp.mlir (a small MLP classifier in msgraph IR with real
# weights) is optimized, compiled to a module file for this CPU, and run with
# ms-run, which prints the outputs and the median latency. Then the Python
# JIT compiles and runs a transformer encoder block written with ms.ops
# (python/examples/attention.py) and checks it against NumPy.
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
build="${MS_BUILD_DIR:-$root/build}"

bash "$root/utils/setup.sh"
bash "$root/utils/build.sh" ms-opt ms-compile ms-run ms-python

out="$(mktemp -d)"
trap 'rm -rf "$out"' EXIT
echo "== graph optimization (ms-opt --msgraph-optimize examples/mlp.mlir)"
"$build/bin/ms-opt" "$root/examples/mlp.mlir" --msgraph-optimize \
  | grep -v "msgraph.constant"
echo
echo "== compile (ms-compile -O0 --target cpu --memory-report)"
"$build/bin/ms-compile" "$root/examples/mlp.mlir" -o "$out/mlp.msm" \
  -O0 --target cpu --memory-report
echo
echo "== run (ms-run --bench 100)"
"$build/bin/ms-run" "$out/mlp.msm" --output-dir "$out/outputs" --bench 100
echo
echo "== Python: @ms.jit on a transformer encoder block (python/examples/attention.py)"
PYTHONPATH="$build/python" /usr/bin/python3 "$root/python/examples/attention.py"
