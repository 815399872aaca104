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

/* The twelve forms of one type, as S(NAME, T, WHAT, RET, SHAPE); SHAPE names the parameters:
 * SCALAR (one comparison value), SOME (and the indices found), VECTOR (a value per element),
 * SOME_VECTOR. Every consumer expands this one table. */
#define SYMMETRA_NVSHMEM_WAIT_TABLE(S, NAME, T)           \
  S(NAME, T, wait_until_all, void, SCALAR)                \
  S(NAME, T, wait_until_any, size_t, SCALAR)              \
  S(NAME, T, wait_until_some, size_t, SOME)               \
  S(NAME, T, wait_until_all_vector, void, VECTOR)         \
  S(NAME, T, wait_until_any_vector, size_t, VECTOR)       \
  S(NAME, T, wait_until_some_vector, size_t, SOME_VECTOR) \
  S(NAME, T, test_all, int, SCALAR)                       \
  S(NAME, T, test_any, size_t, SCALAR)                    \
  S(NAME, T, test_some, size_t, SOME)                     \
  S(NAME, T, test_all_vector, int, VECTOR)                \
  S(NAME, T, test_any_vector, size_t, VECTOR)             \
  S(NAME, T, test_some_vector, size_t, SOME_VECTOR)
/* Each shape's parameters and arguments. */
#define SYMMETRAI_WAIT_PARAMS_SCALAR(T) \
  (T * ivars, size_t nelems, const int* status, int cmp, T cmp_value)
#define SYMMETRAI_WAIT_PARAMS_SOME(T) \
  (T * ivars, size_t nelems, size_t * indices, const int* status, int cmp, T cmp_value)
#define SYMMETRAI_WAIT_PARAMS_VECTOR(T) \
  (T * ivars, size_t nelems, const int* status, int cmp, T* cmp_values)
#define SYMMETRAI_WAIT_PARAMS_SOME_VECTOR(T) \
  (T * ivars, size_t nelems, size_t * indices, const int* status, int cmp, T* cmp_values)
#define SYMMETRAI_WAIT_ARGS_SCALAR (ivars, nelems, status, cmp, cmp_value)
#define SYMMETRAI_WAIT_ARGS_SOME (ivars, nelems, indices, status, cmp, cmp_value)
#define SYMMETRAI_WAIT_ARGS_VECTOR (ivars, nelems, status, cmp, cmp_values)
#define SYMMETRAI_WAIT_ARGS_SOME_VECTOR (ivars, nelems, indices, status, cmp, cmp_values)

/* The table as X(name, return, parameters, arguments), the form of SYMMETRA_NVSHMEM_BOTH_SIDED. */
#define SYMMETRAI_NVSHMEM_WAIT_AS_X(NAME, T, WHAT, RET, SHAPE) \
  X(NAME##_##WHAT, RET, SYMMETRAI_WAIT_PARAMS_##SHAPE(T), SYMMETRAI_WAIT_ARGS_##SHAPE)
#define SYMMETRAI_NVSHMEM_TYPED_WAIT_ARRAYS(NAME, T) \
  SYMMETRA_NVSHMEM_WAIT_TABLE(SYMMETRAI_NVSHMEM_WAIT_AS_X, NAME, T)
#define SYMMETRA_NVSHMEM_WAIT_BOTH_SIDED \
  SYMMETRA_NVSHMEM_WAIT_TYPES(SYMMETRAI_NVSHMEM_TYPED_WAIT_ARRAYS)

#endif /* SYMMETRA_NVSHMEM_WAIT_H */
