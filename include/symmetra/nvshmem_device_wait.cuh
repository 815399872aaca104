// The CUDA forms of nvshmem_wait.h's waits and tests over arrays (nvshmem.h includes this under
// nvcc): on the device Symmetra's device waits (symmetra/device/wait.hpp) on this unit's constant
// state, bounded as every device wait is; on the host, the library's host forms.
// Threads: the calling thread. Ordering: as nvshmem_wait.h.
#pragma once

#define SYMMETRAI_WAIT_CMP static_cast<symmetra::Cmp>(SYMMETRAI_CMP(cmp))
#define SYMMETRAI_WAIT_FORM(NAME, T, WHAT, RET, params, device_args, host_args)                \
  __host__ __device__ inline RET nvshmem_##NAME##_##WHAT params {                              \
    return static_cast<RET>(                                                                   \
        SYMMETRAI_EITHER(symmetra::device::WHAT(SYMMETRAI_STATE, static_cast<const T*>(ivars), \
                                                SYMMETRAI_UNPAREN device_args),                \
                         symmetrai_host_##NAME##_##WHAT host_args));                           \
  }
#define SYMMETRAI_WAIT_SCALAR(NAME, T, WHAT, RET)                                              \
  SYMMETRAI_WAIT_FORM(                                                                         \
      NAME, T, WHAT, RET, (T * ivars, size_t nelems, const int* status, int cmp, T cmp_value), \
      (nelems, status, SYMMETRAI_WAIT_CMP, cmp_value), (ivars, nelems, status, cmp, cmp_value))
#define SYMMETRAI_WAIT_SOME(NAME, T, WHAT)                                                   \
  SYMMETRAI_WAIT_FORM(                                                                       \
      NAME, T, WHAT, size_t,                                                                 \
      (T * ivars, size_t nelems, size_t * indices, const int* status, int cmp, T cmp_value), \
      (nelems, indices, status, SYMMETRAI_WAIT_CMP, cmp_value),                              \
      (ivars, nelems, indices, status, cmp, cmp_value))
#define SYMMETRAI_WAIT_VECTOR(NAME, T, WHAT, RET)                                              \
  SYMMETRAI_WAIT_FORM(NAME, T, WHAT, RET,                                                      \
                      (T * ivars, size_t nelems, const int* status, int cmp, T* cmp_values),   \
                      (nelems, status, SYMMETRAI_WAIT_CMP, static_cast<const T*>(cmp_values)), \
                      (ivars, nelems, status, cmp, cmp_values))
#define SYMMETRAI_WAIT_SOME_VECTOR(NAME, T, WHAT)                                              \
  SYMMETRAI_WAIT_FORM(                                                                         \
      NAME, T, WHAT, size_t,                                                                   \
      (T * ivars, size_t nelems, size_t * indices, const int* status, int cmp, T* cmp_values), \
      (nelems, indices, status, SYMMETRAI_WAIT_CMP, static_cast<const T*>(cmp_values)),        \
      (ivars, nelems, indices, status, cmp, cmp_values))
#define SYMMETRAI_WAIT_ARRAYS(NAME, T)                          \
  SYMMETRAI_WAIT_SCALAR(NAME, T, wait_until_all, void)          \
  SYMMETRAI_WAIT_SCALAR(NAME, T, wait_until_any, size_t)        \
  SYMMETRAI_WAIT_SOME(NAME, T, wait_until_some)                 \
  SYMMETRAI_WAIT_VECTOR(NAME, T, wait_until_all_vector, void)   \
  SYMMETRAI_WAIT_VECTOR(NAME, T, wait_until_any_vector, size_t) \
  SYMMETRAI_WAIT_SOME_VECTOR(NAME, T, wait_until_some_vector)   \
  SYMMETRAI_WAIT_SCALAR(NAME, T, test_all, int)                 \
  SYMMETRAI_WAIT_SCALAR(NAME, T, test_any, size_t)              \
  SYMMETRAI_WAIT_SOME(NAME, T, test_some)                       \
  SYMMETRAI_WAIT_VECTOR(NAME, T, test_all_vector, int)          \
  SYMMETRAI_WAIT_VECTOR(NAME, T, test_any_vector, size_t)       \
  SYMMETRAI_WAIT_SOME_VECTOR(NAME, T, test_some_vector)

extern "C" {
SYMMETRA_NVSHMEM_WAIT_TYPES(SYMMETRAI_WAIT_ARRAYS)
}  // extern "C"

#undef SYMMETRAI_WAIT_ARRAYS
#undef SYMMETRAI_WAIT_SOME_VECTOR
#undef SYMMETRAI_WAIT_VECTOR
#undef SYMMETRAI_WAIT_SOME
#undef SYMMETRAI_WAIT_SCALAR
#undef SYMMETRAI_WAIT_FORM
#undef SYMMETRAI_WAIT_CMP
