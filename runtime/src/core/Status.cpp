//===- Status.cpp - runtime status values ---------------------------------===//
//
// Part of the ms project.
//
//===----------------------------------------------------------------------===//

#include "ms/runtime/ms_runtime.h"

#include <new>
#include <string>

struct ms_status {
  ms_status_code_t code;
  std::string message;
};

/// Returned when a status cannot be allocated, so that a failure is never
/// mistaken for success; ms_status_free ignores it.
static ms_status outOfMemory{MS_INTERNAL,
                             "out of memory while reporting an error"};

extern "C" ms_status_t ms_status_create(ms_status_code_t code,
                                        const char *message) {
  if (code == MS_OK)
    return nullptr;
  try {
    return new ms_status{code, message ? message : ""};
  } catch (...) {
    return &outOfMemory;
  }
}

extern "C" ms_status_code_t ms_status_code(ms_status_t status) {
  return status ? status->code : MS_OK;
}

extern "C" const char *ms_status_message(ms_status_t status) {
  return status ? status->message.c_str() : "";
}

extern "C" void ms_status_free(ms_status_t status) {
  if (status != &outOfMemory)
    delete status;
}

extern "C" const char *ms_runtime_version(void) { return "0.1.0"; }
