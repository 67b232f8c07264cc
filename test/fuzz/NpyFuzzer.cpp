//===- NpyFuzzer.cpp - fuzz the runtime's .npy reader ---------------------===//
//
// Part of the ms project.
//
//===----------------------------------------------------------------------===//

#include "ms/runtime/Npy.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  ms::rt::NpyArray array;
  (void)ms::rt::parseNpy(data, size, "fuzz.npy", array);
  return 0;
}
