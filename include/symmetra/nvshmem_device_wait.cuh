// The CUDA forms of nvshmem_wait.h's waits and tests over arrays (nvshmem.h includes this under
// nvcc): on the device Symmetra's device waits (symmetra/device/wait.hpp) on this unit's constant
// state, bounded as every device wait is; on the host, the library's host forms.
// Threads: the calling thread. Ordering: as nvshmem_wait.h.
#pragma once

#define SYMMETRAI_WAIT_CMP static_cast<symmetra::Cmp>(SYMMETRAI_CMP(cmp))
// Each shape's arguments to the device wait after the words (the comparison converted).
#define SYMMETRAI_WAIT_DEVICE_SCALAR(T) nelems, status, SYMMETRAI_WAIT_CMP, cmp_value
#define SYMMETRAI_WAIT_DEVICE_SOME(T) nelems, indices, status, SYMMETRAI_WAIT_CMP, cmp_value
#define SYMMETRAI_WAIT_DEVICE_VECTOR(T) \
  nelems, status, SYMMETRAI_WAIT_CMP, static_cast<const T*>(cmp_values)
#define SYMMETRAI_WAIT_DEVICE_SOME_VECTOR(T) \
  nelems, indices, status, SYMMETRAI_WAIT_CMP, static_cast<const T*>(cmp_values)
#define SYMMETRAI_WAIT_FORM(NAME, T, WHAT, RET, SHAPE)                                         \
  __host__ __device__ inline RET nvshmem_##NAME##_##WHAT SYMMETRAI_WAIT_PARAMS_##SHAPE(T) {    \
    return static_cast<RET>(                                                                   \
        SYMMETRAI_EITHER(symmetra::device::WHAT(SYMMETRAI_STATE, static_cast<const T*>(ivars), \
                                                SYMMETRAI_WAIT_DEVICE_##SHAPE(T)),             \
                         symmetrai_host_##NAME##_##WHAT SYMMETRAI_WAIT_ARGS_##SHAPE));         \
  }
#define SYMMETRAI_WAIT_ARRAYS(NAME, T) SYMMETRA_NVSHMEM_WAIT_TABLE(SYMMETRAI_WAIT_FORM, NAME, T)

extern "C" {
SYMMETRA_NVSHMEM_WAIT_TYPES(SYMMETRAI_WAIT_ARRAYS)
}  // extern "C"

#undef SYMMETRAI_WAIT_ARRAYS
#undef SYMMETRAI_WAIT_FORM
#undef SYMMETRAI_WAIT_DEVICE_SOME_VECTOR
#undef SYMMETRAI_WAIT_DEVICE_VECTOR
#undef SYMMETRAI_WAIT_DEVICE_SOME
#undef SYMMETRAI_WAIT_DEVICE_SCALAR
#undef SYMMETRAI_WAIT_CMP
