/* NVSHMEM's point-to-point synchronization over arrays (nvshmem.h includes this): wait_until and
 * test over all, any or some of nelems words, with one comparison value or a vector of them, as
 * X(name, return, parameters, arguments) lists in the form of SYMMETRA_NVSHMEM_BOTH_SIDED for the
 * wait types. The device forms are in nvshmem_device_wait.cuh.
 *
 * Semantics, as OpenSHMEM 1.5's and NVSHMEM's: status (NULL: every element) excludes the
 * elements whose entry is nonzero; _any returns the index of one satisfied element (SIZE_MAX
 * where every element is excluded, or none is satisfied for test_any); _some writes every
 * satisfied index to indices and returns their count; test_all returns 1 when all are
 * satisfied. The waits are bounded by SYMMETRA_TIMEOUT_S, which ends the job naming the wait. */
#ifndef SYMMETRA_NVSHMEM_WAIT_H
#define SYMMETRA_NVSHMEM_WAIT_H

#define SYMMETRAI_NVSHMEM_SCALAR_WAIT(NAME, T, WHAT, RET)                                    \
  X(NAME##_##WHAT, RET, (T * ivars, size_t nelems, const int* status, int cmp, T cmp_value), \
    (ivars, nelems, status, cmp, cmp_value))
#define SYMMETRAI_NVSHMEM_SOME_WAIT(NAME, T, WHAT)                                         \
  X(NAME##_##WHAT, size_t,                                                                 \
    (T * ivars, size_t nelems, size_t * indices, const int* status, int cmp, T cmp_value), \
    (ivars, nelems, indices, status, cmp, cmp_value))
#define SYMMETRAI_NVSHMEM_VECTOR_WAIT(NAME, T, WHAT, RET)                                      \
  X(NAME##_##WHAT, RET, (T * ivars, size_t nelems, const int* status, int cmp, T* cmp_values), \
    (ivars, nelems, status, cmp, cmp_values))
#define SYMMETRAI_NVSHMEM_SOME_VECTOR_WAIT(NAME, T, WHAT)                                    \
  X(NAME##_##WHAT, size_t,                                                                   \
    (T * ivars, size_t nelems, size_t * indices, const int* status, int cmp, T* cmp_values), \
    (ivars, nelems, indices, status, cmp, cmp_values))
#define SYMMETRAI_NVSHMEM_TYPED_WAIT_ARRAYS(NAME, T)                    \
  SYMMETRAI_NVSHMEM_SCALAR_WAIT(NAME, T, wait_until_all, void)          \
  SYMMETRAI_NVSHMEM_SCALAR_WAIT(NAME, T, wait_until_any, size_t)        \
  SYMMETRAI_NVSHMEM_SOME_WAIT(NAME, T, wait_until_some)                 \
  SYMMETRAI_NVSHMEM_VECTOR_WAIT(NAME, T, wait_until_all_vector, void)   \
  SYMMETRAI_NVSHMEM_VECTOR_WAIT(NAME, T, wait_until_any_vector, size_t) \
  SYMMETRAI_NVSHMEM_SOME_VECTOR_WAIT(NAME, T, wait_until_some_vector)   \
  SYMMETRAI_NVSHMEM_SCALAR_WAIT(NAME, T, test_all, int)                 \
  SYMMETRAI_NVSHMEM_SCALAR_WAIT(NAME, T, test_any, size_t)              \
  SYMMETRAI_NVSHMEM_SOME_WAIT(NAME, T, test_some)                       \
  SYMMETRAI_NVSHMEM_VECTOR_WAIT(NAME, T, test_all_vector, int)          \
  SYMMETRAI_NVSHMEM_VECTOR_WAIT(NAME, T, test_any_vector, size_t)       \
  SYMMETRAI_NVSHMEM_SOME_VECTOR_WAIT(NAME, T, test_some_vector)
#define SYMMETRA_NVSHMEM_WAIT_BOTH_SIDED \
  SYMMETRA_NVSHMEM_WAIT_TYPES(SYMMETRAI_NVSHMEM_TYPED_WAIT_ARRAYS)

#endif /* SYMMETRA_NVSHMEM_WAIT_H */
