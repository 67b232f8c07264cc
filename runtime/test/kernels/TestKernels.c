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
