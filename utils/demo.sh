#!/usr/bin/env bash
# Sets up a fresh machine, builds ms and runs the main job on the bundled
# example: the graph optimization pipeline over a small MLP written in
# msgraph IR (examples/mlp.mlir).
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
build="${MS_BUILD_DIR:-$root/build}"

bash "$root/utils/setup.sh"
bash "$root/utils/build.sh" ms-opt

echo "== input: examples/mlp.mlir"
grep -c "msgraph\." "$root/examples/mlp.mlir" | sed 's/^/msgraph ops before: /'
echo "== ms-opt --msgraph-optimize"
"$build/bin/ms-opt" "$root/examples/mlp.mlir" --msgraph-optimize | tee /tmp/ms-demo-out.mlir
grep -c "msgraph\." /tmp/ms-demo-out.mlir | sed 's/^/msgraph ops after: /'
