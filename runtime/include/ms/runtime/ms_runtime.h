/*===- ms_runtime.h - ms runtime C API ------------------------------*- C -*-===
 *
 * Part of the ms project.
 *
 *===----------------------------------------------------------------------===
 *
 * The runtime's C API (docs/Runtime.md). Every fallible call returns a
 * status: NULL on success, otherwise an object with a code and a message that
 * the caller releases with ms_status_free. The runtime never aborts on bad
 * input. Handles are opaque; each object keeps alive what it was created from
 * (a module keeps its device, a context its module), so handles may be freed
 * in any order.
 *
 * Threading: devices, modules and streams may be used from several threads.
 * A context holds the scratch memory of one run at a time; use one context
 * per thread (see ms_context_run).
 *
 *===----------------------------------------------------------------------===*/

#ifndef MS_RUNTIME_MS_RUNTIME_H
#define MS_RUNTIME_MS_RUNTIME_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/*===----------------------------------------------------------------------===
 * Status
 *===----------------------------------------------------------------------===*/

/// Status codes returned by runtime calls.
typedef enum ms_status_code_t {
  MS_OK = 0,
  MS_INVALID_ARGUMENT = 1,
  MS_NOT_FOUND = 2,
  MS_DATA_LOSS = 3,
  MS_UNIMPLEMENTED = 4,
  MS_INTERNAL = 5,
  MS_UNAVAILABLE = 6,
  /* Keeps any 32-bit value a valid enumerator (robust against bad input). */
  MS_STATUS_CODE_MAX = 0x7fffffff,
} ms_status_code_t;

/// An opaque status; NULL means success.
typedef struct ms_status *ms_status_t;

/// Creates a failed status with a copy of `message`. Returns NULL for MS_OK.
/// Never returns NULL for a failure code, even when out of memory.
ms_status_t ms_status_create(ms_status_code_t code, const char *message);
/// Returns the code of `status` (MS_OK for NULL).
ms_status_code_t ms_status_code(ms_status_t status);
/// Returns the message of `status` ("" for NULL); owned by the status.
const char *ms_status_message(ms_status_t status);
/// Releases `status` (NULL is fine).
void ms_status_free(ms_status_t status);
/// Returns the runtime version as "major.minor.patch".
const char *ms_runtime_version(void);

/*===----------------------------------------------------------------------===
 * Element types
 *===----------------------------------------------------------------------===*/

/// Element types; the names are the module format's dtype strings.
typedef enum ms_dtype_t {
  MS_DTYPE_INVALID = 0,
  MS_DTYPE_F16 = 1,
  MS_DTYPE_BF16 = 2,
  MS_DTYPE_F32 = 3,
  MS_DTYPE_F64 = 4,
  MS_DTYPE_BOOL = 5, /* one byte per element */
  MS_DTYPE_I8 = 6,
  MS_DTYPE_I16 = 7,
  MS_DTYPE_I32 = 8,
  MS_DTYPE_I64 = 9,
  MS_DTYPE_U8 = 10,
  MS_DTYPE_U16 = 11,
  MS_DTYPE_U32 = 12,
  MS_DTYPE_U64 = 13,
  MS_DTYPE_STRING = 14, /* one ms_string_t per element */
  MS_DTYPE_MAX = 0x7fffffff,
} ms_dtype_t;

/// One element of a string tensor: `size` bytes of UTF-8 at `data` (not
/// NUL-terminated; NULL is fine when `size` is 0). A string tensor's memory
/// is an array of these (in device memory, like any tensor's); the
/// characters live in host memory: the caller's for inputs, the context's
/// for strings a run produces (valid until the next run of the context or
/// its release).
typedef struct ms_string_t {
  const char *data;
  uint64_t size;
} ms_string_t;

/// Returns the size of one element in bytes (0 for an invalid dtype).
size_t ms_dtype_size(ms_dtype_t dtype);
/// Returns the dtype's name ("f32", ...; "invalid" for an invalid dtype).
const char *ms_dtype_name(ms_dtype_t dtype);
/// Returns the dtype named `name`, or MS_DTYPE_INVALID.
ms_dtype_t ms_dtype_from_name(const char *name);

/*===----------------------------------------------------------------------===
 * Devices
 *===----------------------------------------------------------------------===*/

/// Kinds of device.
typedef enum ms_device_kind_t {
  MS_DEVICE_CPU = 1,
  MS_DEVICE_CUDA = 2,
  MS_DEVICE_NPU_SIM = 3,
  MS_DEVICE_KIND_MAX = 0x7fffffff,
} ms_device_kind_t;

/// A device: where buffers live and kernels run.
typedef struct ms_device *ms_device_t;

/// Creates a device of `kind`. Returns MS_UNAVAILABLE for a kind this build
/// or machine cannot provide.
ms_status_t ms_device_create(ms_device_kind_t kind, ms_device_t *out);
/// Returns the kind of `device`.
ms_device_kind_t ms_device_kind(ms_device_t device);
/// Returns a short name such as "cpu"; owned by the device.
const char *ms_device_name(ms_device_t device);
/// Returns the architecture of the device's hardware, owned by the device:
/// for cuda "sm_" and the GPU's compute capability ("sm_90" for 9.0, which
/// ms-compile --cuda-arch=sm_90a and sm_90 run on; "sm_80" for 8.0); ""
/// for devices whose code does not depend on it (cpu, npu) or NULL.
const char *ms_device_arch(ms_device_t device);
/// Waits for the device's own outstanding work (streams sync separately).
ms_status_t ms_device_synchronize(ms_device_t device);
/// Returns, as a JSON object, what a simulated device measured of the
/// kernels it ran since it was created (finished launches only). For the
/// npu device: {"device": "npu", "kernels_launched": N, "cycles": C (the
/// launches one after another), "core_cycles": C times the cores of each
/// launch's configuration, "busy_cycles": {pipe: cycles summed over cores},
/// "instructions": {op: count}, "kernels": {name: {"launches": N,
/// "cycles": C}}}. "{}" for a device that measures nothing (cpu, cuda) or
/// a NULL device. The text is owned by the handle and valid until the next
/// ms_device_profile call on it or its release.
const char *ms_device_profile(ms_device_t device);
/// Starts recording a timeline of the device's kernels (dropping one not
/// written yet). MS_UNIMPLEMENTED, naming the device, for a device that
/// cannot record one (only the simulated npu can).
ms_status_t ms_device_trace_begin(ms_device_t device);
/// Writes the timeline recorded since ms_device_trace_begin to `path` as
/// Chrome trace-event JSON (chrome://tracing, Perfetto: one process per
/// core, one thread per pipe; ts and dur in simulated cycles) and stops
/// recording. Fails when no recording was begun, or the device cannot
/// trace.
ms_status_t ms_device_trace_write(ms_device_t device, const char *path);
/// Releases the caller's reference to `device` (NULL is fine).
void ms_device_free(ms_device_t device);

/*===----------------------------------------------------------------------===
 * Buffers
 *===----------------------------------------------------------------------===*/

/// A range of device memory, owned or borrowed.
typedef struct ms_buffer *ms_buffer_t;

/// Allocates `size` zeroed bytes of device memory, 64-byte aligned.
ms_status_t ms_buffer_allocate(ms_device_t device, size_t size,
                               ms_buffer_t *out);
/// Wraps `size` bytes of caller memory at `data` without copying; the memory
/// must outlive the buffer. `data` may be NULL only when `size` is 0.
ms_status_t ms_buffer_wrap(ms_device_t device, void *data, size_t size,
                           ms_buffer_t *out);
/// Returns the buffer's data pointer (a device address for device memory).
void *ms_buffer_data(ms_buffer_t buffer);
/// Returns the buffer's size in bytes.
size_t ms_buffer_size(ms_buffer_t buffer);
/// Copies `size` bytes from host memory `src` into the buffer at `offset`.
ms_status_t ms_buffer_write(ms_buffer_t buffer, size_t offset, const void *src,
                            size_t size);
/// Copies `size` bytes at `offset` of the buffer into host memory `dst`.
ms_status_t ms_buffer_read(ms_buffer_t buffer, size_t offset, void *dst,
                           size_t size);
/// Releases `buffer`, and its memory when owned (NULL is fine).
void ms_buffer_free(ms_buffer_t buffer);

/*===----------------------------------------------------------------------===
 * Streams
 *===----------------------------------------------------------------------===*/

/// An ordered queue of work on a device: items run one after another, in
/// submission order, asynchronously to the submitting thread.
typedef struct ms_stream *ms_stream_t;

/// Host work for a stream; returns NULL or a status the stream takes over.
typedef ms_status_t (*ms_host_fn_t)(void *user_data);

/// Creates a stream on `device`.
ms_status_t ms_stream_create(ms_device_t device, ms_stream_t *out);
/// Queues `fn(user_data)` to run after the work submitted before it.
ms_status_t ms_stream_submit(ms_stream_t stream, ms_host_fn_t fn,
                             void *user_data);
/// Waits until all submitted work has run. Returns the first failure since
/// the previous synchronize (later work still ran), then forgets it.
ms_status_t ms_stream_synchronize(ms_stream_t stream);
/// Waits for the stream's work, drops any pending failure and releases the
/// stream (NULL is fine).
void ms_stream_free(ms_stream_t stream);

/*===----------------------------------------------------------------------===
 * Modules
 *===----------------------------------------------------------------------===*/

/// A loaded module file (.msm, docs/ModuleFormat.md).
typedef struct ms_module *ms_module_t;

/// Describes one input or output of a module. Pointers are owned by the
/// module and stay valid while it lives.
typedef struct ms_tensor_info_t {
  const char *name;
  ms_dtype_t dtype;
  uint32_t rank;
  /// Static extents; -1 marks a data-dependent extent of an output (known
  /// only once a run has computed it).
  const int64_t *shape;
  /// Size in bytes: dtype size times the product of the shape; for an output
  /// with data-dependent extents, the most it can take.
  uint64_t size;
} ms_tensor_info_t;

/// Maps, validates and loads the module file at `path` onto `device`,
/// resolving every kernel. The status names the file and the problem.
ms_status_t ms_module_load(ms_device_t device, const char *path,
                           ms_module_t *out);
/// Returns the number of inputs of `module`.
size_t ms_module_input_count(ms_module_t module);
/// Returns the number of outputs of `module`.
size_t ms_module_output_count(ms_module_t module);
/// Describes input `index`.
ms_status_t ms_module_input_info(ms_module_t module, size_t index,
                                 ms_tensor_info_t *out);
/// Describes output `index`.
ms_status_t ms_module_output_info(ms_module_t module, size_t index,
                                  ms_tensor_info_t *out);
/// Returns the module's meta section (JSON text); owned by the module.
const char *ms_module_meta(ms_module_t module);
/// Releases the caller's reference to `module` (NULL is fine).
void ms_module_free(ms_module_t module);

/*===----------------------------------------------------------------------===
 * Communicators
 *===----------------------------------------------------------------------===*/

/// The world of processes that run one module compiled for several ranks
/// (SPMD), seen from this process: its rank and the world size. Each
/// process creates one, then its contexts with ms_context_create_with_comm;
/// every process must create its contexts in the same order.
typedef struct ms_comm *ms_comm_t;

/// Creates the communicator the launcher's environment describes:
/// MS_RANK, MS_WORLD_SIZE and MS_RENDEZVOUS (ms-run --nproc; the gloo
/// plugin, TCP), else OMPI_COMM_WORLD_RANK and OMPI_COMM_WORLD_SIZE or
/// PMI_RANK and PMI_SIZE (mpirun; the MPI plugin), else a world of one
/// process. Joining the world waits for every rank, at most MS_COMM_TIMEOUT
/// seconds (default 60), which also bounds every collective. Fails, naming
/// the variable or the missing ranks, instead of hanging.
ms_status_t ms_comm_create_from_env(ms_comm_t *out);
/// Sets `*out` to this process's rank (0 .. world size - 1).
ms_status_t ms_comm_rank(ms_comm_t comm, int32_t *out);
/// Sets `*out` to the number of processes in the world.
ms_status_t ms_comm_world_size(ms_comm_t comm, int32_t *out);
/// Returns the backend: "local" (a world of one), "gloo" or "mpi" (""
/// for NULL); owned by the communicator.
const char *ms_comm_backend(ms_comm_t comm);
/// Releases the caller's reference to `comm` (NULL is fine); contexts
/// created with it keep it alive.
void ms_comm_release(ms_comm_t comm);

/*===----------------------------------------------------------------------===
 * Execution
 *===----------------------------------------------------------------------===*/

/// A tensor passed to or returned from a run: a view of memory the caller
/// (or, for runtime-allocated outputs, the context) owns.
typedef struct ms_tensor_t {
  void *data;
  /// Size in bytes.
  uint64_t size;
  ms_dtype_t dtype;
  uint32_t rank;
  const int64_t *shape;
} ms_tensor_t;

/// Everything one run of a module needs besides its tensors: the scratch
/// arena (allocated once, reused by every run) and runtime-owned outputs.
typedef struct ms_context *ms_context_t;

/// Creates a run context for `module`, allocating its arena, in a world of
/// one process: a module compiled for several ranks is refused (its message
/// says how to launch it).
ms_status_t ms_context_create(ms_module_t module, ms_context_t *out);
/// Creates a run context for `module` in the world of `comm` (NULL: a world
/// of one process). A module compiled for N > 1 ranks needs a world of
/// exactly N processes; its collective steps' groups are connected here
/// (collective over the world, bounded by MS_COMM_TIMEOUT). A module of one
/// rank runs alone in any world.
ms_status_t ms_context_create_with_comm(ms_module_t module, ms_comm_t comm,
                                        ms_context_t *out);
/// Runs the module and returns when it has finished: plan queue 0 on the
/// calling thread, and the plan's other queues (if any) concurrently on the
/// device's workers.
///
/// `inputs` must match the module's inputs in count, order, dtype, shape and
/// byte size, and their data must be aligned as the device's kernels read it
/// (16 bytes on the cuda device, whose kernels move 128 bits at a time;
/// memory from ms_buffer_allocate always is); failures name the input. For
/// each output, either describe
/// caller memory (validated like an input), or set `data` to NULL and the
/// runtime fills in the whole tensor with memory owned by the context, valid
/// until the context is freed and overwritten by the next run. Outputs with
/// data-dependent extents (-1 in their info) must be left to the runtime;
/// their `shape` and `size` are the computed ones once the run has finished
/// (for a queued run: once its stream is synchronized; until then `size` is
/// the capacity).
ms_status_t ms_context_run(ms_context_t context, const ms_tensor_t *inputs,
                           size_t input_count, ms_tensor_t *outputs,
                           size_t output_count);
/// Like ms_context_run, but validates and binds now and queues the run on
/// `stream`; the memory of every tensor must stay valid until the stream has
/// been synchronized. Runs of one context may be queued on one stream at a
/// time.
ms_status_t ms_context_enqueue(ms_context_t context, ms_stream_t stream,
                               const ms_tensor_t *inputs, size_t input_count,
                               ms_tensor_t *outputs, size_t output_count);
/// Starts (`enable` nonzero) or stops (zero) recording a timeline of the
/// context's runs, synchronous and queued. Starting drops the spans recorded
/// so far; stopping keeps them for ms_context_write_trace. While recording,
/// every launch, graph, copy, host and collective step records a span: its
/// name (the kernel's symbol, "copy <N>B", the host op, or "<op> <N>B" for
/// a collective of an N-byte source), its category ("compute", or "comm"
/// for a collective), its plan queue, and its start and end on the steady
/// clock (CLOCK_MONOTONIC, shared by every process of the machine). A
/// traced step runs inside a host callback that times it, which costs a
/// little per step; an untraced run is unchanged. MS_UNIMPLEMENTED on a
/// device other than the cpu ("tracing runs is supported on the cpu device
/// only"; the npu device records its own timeline, ms_device_trace_begin).
ms_status_t ms_context_set_trace(ms_context_t context, int enable);
/// Writes the spans recorded since tracing was last started to `path` as
/// Chrome trace-event JSON (chrome://tracing, Perfetto): process `pid` (>= 0,
/// named "rank <pid>"), one thread per plan queue ("queue Q (compute)",
/// "(comm)" or "(compute+comm)"), one complete ("X") event per span with ts
/// and dur in microseconds and args {"run": the run's index since tracing
/// started, "step": its index in the steps the plan runs (a call's body
/// steps counted once per call), "kind", and "op", "bytes",
/// "dst_bytes", "group_size" for a collective}. Recording goes on. The file
/// is written under a temporary name and renamed, so it is never seen
/// partially written. Spans of queued runs are recorded as the runs
/// execute: synchronize the stream first. Fails when tracing was never
/// started on the context, or the file cannot be written.
ms_status_t ms_context_write_trace(ms_context_t context, const char *path,
                                   int pid);
/// Releases the caller's reference to `context` (NULL is fine); queued runs
/// still complete.
void ms_context_free(ms_context_t context);

#ifdef __cplusplus
}
#endif

#endif /* MS_RUNTIME_MS_RUNTIME_H */
