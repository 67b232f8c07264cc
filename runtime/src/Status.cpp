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

extern "C" ms_status_t ms_status_create(ms_status_code_t code,
                                        const char *message) {
  if (code == MS_OK)
    return nullptr;
  return new (std::nothrow) ms_status{code, message ? message : ""};
}

extern "C" ms_status_code_t ms_status_code(ms_status_t status) {
  // A status that could not be allocated still reports a failure.
  return status ? status->code : MS_OK;
}

extern "C" const char *ms_status_message(ms_status_t status) {
  return status ? status->message.c_str() : "";
}

extern "C" void ms_status_free(ms_status_t status) { delete status; }

extern "C" const char *ms_runtime_version(void) { return "0.1.0"; }
