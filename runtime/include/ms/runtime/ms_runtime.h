/*===- ms_runtime.h - ms runtime C API ------------------------------*- C -*-===
 *
 * Part of the ms project.
 *
 * The runtime's C API. Every call returns a status; a failed status carries a
 * message and is released by the caller. The runtime never aborts on bad
 * input. The module loader, devices and executor join this API with the CPU
 * backend (see docs/Architecture.md).
 *
 *===----------------------------------------------------------------------===*/

#ifndef MS_RUNTIME_MS_RUNTIME_H
#define MS_RUNTIME_MS_RUNTIME_H

#ifdef __cplusplus
extern "C" {
#endif

/// Status codes returned by runtime calls.
typedef enum ms_status_code_t {
  MS_OK = 0,
  MS_INVALID_ARGUMENT = 1,
  MS_NOT_FOUND = 2,
  MS_DATA_LOSS = 3,
  MS_UNIMPLEMENTED = 4,
  MS_INTERNAL = 5,
  MS_UNAVAILABLE = 6,
} ms_status_code_t;

/// An opaque status; NULL means success.
typedef struct ms_status *ms_status_t;

/// Creates a failed status with a copy of `message`.
ms_status_t ms_status_create(ms_status_code_t code, const char *message);
/// Returns the code of `status` (MS_OK for NULL).
ms_status_code_t ms_status_code(ms_status_t status);
/// Returns the message of `status` ("" for NULL); owned by the status.
const char *ms_status_message(ms_status_t status);
/// Releases `status` (NULL is fine).
void ms_status_free(ms_status_t status);
/// Returns the runtime version as "major.minor.patch".
const char *ms_runtime_version(void);

#ifdef __cplusplus
}
#endif

#endif /* MS_RUNTIME_MS_RUNTIME_H */
