#!/usr/bin/env bash
# Regenerates the committed reference docs in docs/generated/ from ODS.
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
build="${MS_BUILD_DIR:-$root/build}"
"$root/utils/build.sh" ms-docs
mkdir -p "$root/docs/generated"
cp "$build/docs/Dialects/MSGraphOps.md" "$root/docs/generated/MSGraphOps.md"
cp "$build/docs/Passes/MSGraphPasses.md" "$root/docs/generated/MSGraphPasses.md"
cp "$build/docs/Dialects/MSExecOps.md" "$root/docs/generated/MSExecOps.md"
cp "$build/docs/Passes/MSExecPasses.md" "$root/docs/generated/MSExecPasses.md"
cp "$build/docs/Dialects/MSFusionOps.md" "$root/docs/generated/MSFusionOps.md"
cp "$build/docs/Passes/MSFusionPasses.md" "$root/docs/generated/MSFusionPasses.md"
cp "$build/docs/Dialects/MSNpuOps.md" "$root/docs/generated/MSNpuOps.md"
cp "$build/docs/Passes/MSTargetNPUPasses.md" "$root/docs/generated/MSTargetNPUPasses.md"
cp "$build/docs/Dialects/MSDistOps.md" "$root/docs/generated/MSDistOps.md"
cp "$build/docs/Passes/MSDistPasses.md" "$root/docs/generated/MSDistPasses.md"
echo "docs/generated updated"
