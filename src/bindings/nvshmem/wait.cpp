// NVSHMEM's waits and tests over arrays (symmetra/nvshmem_wait.h) on the host, over the
// Runtime's OpenSHMEM 1.5 forms on the canonical fixed-width types.
#include "bindings/nvshmem/state.hpp"

using namespace symmetra;
using bindings::canon;
using bindings::canon_t;
using nvshmem::guarded;
using nvshmem::rt;

// One host form: `call` names the Runtime's form and its arguments (ivars and the comparison
// values canonical, cmp checked).
#define SYMMETRA_NVSHMEM_HOST_WAIT_ARRAY(NAME, T, WHAT, RET, params, call)  \
  RET symmetrai_host_##NAME##_##WHAT params {                               \
    constexpr const char* op = "nvshmem_" #NAME "_" #WHAT;                  \
    const Cmp c = nvshmem::cmp_of(cmp, op);                                 \
    return static_cast<RET>(guarded(op, [&] { return rt(op).WHAT call; })); \
  }
#define SYMMETRA_NVSHMEM_IVARS(T) canon(static_cast<const T*>(ivars))
#define SYMMETRA_NVSHMEM_SCALAR(NAME, T, WHAT, RET)                                            \
  SYMMETRA_NVSHMEM_HOST_WAIT_ARRAY(                                                            \
      NAME, T, WHAT, RET, (T * ivars, size_t nelems, const int* status, int cmp, T cmp_value), \
      (SYMMETRA_NVSHMEM_IVARS(T), nelems, status, c, static_cast<canon_t<T>>(cmp_value)))
#define SYMMETRA_NVSHMEM_SOME(NAME, T, WHAT)                                                 \
  SYMMETRA_NVSHMEM_HOST_WAIT_ARRAY(                                                          \
      NAME, T, WHAT, size_t,                                                                 \
      (T * ivars, size_t nelems, size_t * indices, const int* status, int cmp, T cmp_value), \
      (SYMMETRA_NVSHMEM_IVARS(T), nelems, indices, status, c, static_cast<canon_t<T>>(cmp_value)))
#define SYMMETRA_NVSHMEM_VECTOR(NAME, T, WHAT, RET)                                              \
  SYMMETRA_NVSHMEM_HOST_WAIT_ARRAY(                                                              \
      NAME, T, WHAT, RET, (T * ivars, size_t nelems, const int* status, int cmp, T* cmp_values), \
      (SYMMETRA_NVSHMEM_IVARS(T), nelems, status, c, canon(static_cast<const T*>(cmp_values))))
#define SYMMETRA_NVSHMEM_SOME_VECTOR(NAME, T, WHAT)                                            \
  SYMMETRA_NVSHMEM_HOST_WAIT_ARRAY(                                                            \
      NAME, T, WHAT, size_t,                                                                   \
      (T * ivars, size_t nelems, size_t * indices, const int* status, int cmp, T* cmp_values), \
      (SYMMETRA_NVSHMEM_IVARS(T), nelems, indices, status, c,                                  \
       canon(static_cast<const T*>(cmp_values))))
#define SYMMETRA_NVSHMEM_HOST_WAITS(NAME, T)                      \
  SYMMETRA_NVSHMEM_SCALAR(NAME, T, wait_until_all, void)          \
  SYMMETRA_NVSHMEM_SCALAR(NAME, T, wait_until_any, size_t)        \
  SYMMETRA_NVSHMEM_SOME(NAME, T, wait_until_some)                 \
  SYMMETRA_NVSHMEM_VECTOR(NAME, T, wait_until_all_vector, void)   \
  SYMMETRA_NVSHMEM_VECTOR(NAME, T, wait_until_any_vector, size_t) \
  SYMMETRA_NVSHMEM_SOME_VECTOR(NAME, T, wait_until_some_vector)   \
  SYMMETRA_NVSHMEM_SCALAR(NAME, T, test_all, int)                 \
  SYMMETRA_NVSHMEM_SCALAR(NAME, T, test_any, size_t)              \
  SYMMETRA_NVSHMEM_SOME(NAME, T, test_some)                       \
  SYMMETRA_NVSHMEM_VECTOR(NAME, T, test_all_vector, int)          \
  SYMMETRA_NVSHMEM_VECTOR(NAME, T, test_any_vector, size_t)       \
  SYMMETRA_NVSHMEM_SOME_VECTOR(NAME, T, test_some_vector)

extern "C" {

SYMMETRA_NVSHMEM_WAIT_TYPES(SYMMETRA_NVSHMEM_HOST_WAITS)

#define X(name, ret, params, args)     \
  ret nvshmem_##name params {          \
    return symmetrai_host_##name args; \
  }
SYMMETRA_NVSHMEM_WAIT_BOTH_SIDED
#undef X

}  // extern "C"
