#!/usr/bin/env bash
# Installs every Debian package that building and testing ms needs.
# Idempotent: safe to run twice; skips apt entirely when everything is present.
set -euo pipefail

PACKAGES=(
  build-essential cmake ninja-build ccache git
  llvm-22-dev libmlir-22-dev mlir-22-tools llvm-22-tools lld-22 clang-format-22
  libprotobuf-dev protobuf-compiler nlohmann-json3-dev libgtest-dev libgmock-dev
  libomp-22-dev pybind11-dev python3-dev python3-numpy python3-pytest
  clang-22 libclang-rt-22-dev
  libgloo-dev libopenmpi-dev openmpi-bin
)

missing=()
for p in "${PACKAGES[@]}"; do
  if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed"; then
    missing+=("$p")
  fi
done

if [ ${#missing[@]} -eq 0 ]; then
  echo "setup: all ${#PACKAGES[@]} packages present"
  exit 0
fi

SUDO=""
if [ "$(id -u)" -ne 0 ]; then SUDO="sudo"; fi
echo "setup: installing ${missing[*]}"
export DEBIAN_FRONTEND=noninteractive
$SUDO apt-get update -qq
$SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
echo "setup: done"
