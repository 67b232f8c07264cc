/*===- TestKernels.c - kernels for the runtime tests ----------------*- C -*-===
 *
 * Part of the ms project.
 *
 *===----------------------------------------------------------------------===
 *
 * Stand-ins for compiler output: each kernel follows the CPU ABI
 * `void ms_kernel_<N>(void **args)`, args[j] being the data pointer of the
 * step's j-th buffer. Tensors are f32[4]. The variant build (with
 * MS_TEST_KERNELS_VARIANT) makes ms_kernel_0 subtract instead of add.
 *
 *===----------------------------------------------------------------------===*/

#define _POSIX_C_SOURCE 199309L

#include <stdint.h>
#include <time.h>

#define N 4

/// out = a + b (a - b in the variant); args: a, b, out.
void ms_kernel_0(void **args) {
  const float *a = (const float *)args[0];
  const float *b = (const float *)args[1];
  float *out = (float *)args[2];
  for (int i = 0; i < N; ++i) {
#ifdef MS_TEST_KERNELS_VARIANT
    out[i] = a[i] - b[i];
#else
    out[i] = a[i] + b[i];
#endif
  }
}

/// dst = src; args: src, dst.
void ms_kernel_1(void **args) {
  const float *src = (const float *)args[0];
  float *dst = (float *)args[1];
  for (int i = 0; i < N; ++i)
    dst[i] = src[i];
}

/// out = a * b; args: a, b, out.
void ms_kernel_2(void **args) {
  const float *a = (const float *)args[0];
  const float *b = (const float *)args[1];
  float *out = (float *)args[2];
  for (int i = 0; i < N; ++i)
    out[i] = a[i] * b[i];
}

/// out = max(a, 0); args: a, out.
void ms_kernel_3(void **args) {
  const float *a = (const float *)args[0];
  float *out = (float *)args[1];
  for (int i = 0; i < N; ++i)
    out[i] = a[i] > 0.0f ? a[i] : 0.0f;
}

/// Returns the monotonic clock in seconds.
static double seconds(void) {
  struct timespec now;
  clock_gettime(CLOCK_MONOTONIC, &now);
  return (double)now.tv_sec + 1e-9 * (double)now.tv_nsec;
}

/// Waits until the int32 flag *args[0] is nonzero (another queue sets it),
/// for at most 5 s, then clears it; fills out (f32[4]) with 1 when the flag
/// was seen, -1 when the wait timed out. args: flag, out. Proves that two
/// queues run concurrently without hanging a test when they do not.
void ms_test_wait_flag(void **args) {
  int32_t *flag = (int32_t *)args[0];
  float *out = (float *)args[1];
  double deadline = seconds() + 5.0;
  int seen = 0;
  while (!(seen = __atomic_load_n(flag, __ATOMIC_ACQUIRE) != 0) &&
         seconds() < deadline) {
    struct timespec pause = {0, 50000};
    nanosleep(&pause, 0);
  }
  __atomic_store_n(flag, 0, __ATOMIC_RELEASE);
  for (int i = 0; i < N; ++i)
    out[i] = seen ? 1.0f : -1.0f;
}

/// Sets the int32 flag *args[0] that ms_test_wait_flag waits for. args:
/// flag.
void ms_test_set_flag(void **args) {
  __atomic_store_n((int32_t *)args[0], 1, __ATOMIC_RELEASE);
}
