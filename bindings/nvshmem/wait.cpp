// NVSHMEM's waits and tests over arrays (symmetra/nvshmem_wait.h) on the host, over the
// Runtime's OpenSHMEM 1.5 forms on the canonical fixed-width types.
#include "bindings/nvshmem/state.hpp"

using namespace symmetra;
using bindings::canon;
using bindings::canon_t;
using nvshmem::guarded;
using nvshmem::rt;

// One host form: the Runtime's form of the same name, with the words and comparison values
// canonical and the comparison checked (`values` is the shape's last argument, converted).
#define SYMMETRA_NVSHMEM_HOST_WAIT(NAME, T, WHAT, RET, SHAPE)                       \
  RET symmetrai_host_##NAME##_##WHAT SYMMETRAI_WAIT_PARAMS_##SHAPE(T) {             \
    constexpr const char* op = "nvshmem_" #NAME "_" #WHAT;                          \
    const Cmp c = nvshmem::cmp_of(cmp, op);                                         \
    return static_cast<RET>(                                                        \
        guarded(op, [&] { return rt(op).WHAT SYMMETRA_NVSHMEM_CALL_##SHAPE(T); })); \
  }
#define SYMMETRA_NVSHMEM_IVARS(T) canon(static_cast<const T*>(ivars))
#define SYMMETRA_NVSHMEM_CALL_SCALAR(T) \
  (SYMMETRA_NVSHMEM_IVARS(T), nelems, status, c, static_cast<canon_t<T>>(cmp_value))
#define SYMMETRA_NVSHMEM_CALL_SOME(T) \
  (SYMMETRA_NVSHMEM_IVARS(T), nelems, indices, status, c, static_cast<canon_t<T>>(cmp_value))
#define SYMMETRA_NVSHMEM_CALL_VECTOR(T) \
  (SYMMETRA_NVSHMEM_IVARS(T), nelems, status, c, canon(static_cast<const T*>(cmp_values)))
#define SYMMETRA_NVSHMEM_CALL_SOME_VECTOR(T) \
  (SYMMETRA_NVSHMEM_IVARS(T), nelems, indices, status, c, canon(static_cast<const T*>(cmp_values)))
#define SYMMETRA_NVSHMEM_HOST_WAITS(NAME, T) \
  SYMMETRA_NVSHMEM_WAIT_TABLE(SYMMETRA_NVSHMEM_HOST_WAIT, NAME, T)

extern "C" {

SYMMETRA_NVSHMEM_WAIT_TYPES(SYMMETRA_NVSHMEM_HOST_WAITS)

#define X SYMMETRA_NVSHMEM_BOTH_NAMES
SYMMETRA_NVSHMEM_WAIT_BOTH_SIDED
#undef X

}  // extern "C"
