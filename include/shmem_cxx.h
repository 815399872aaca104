/* C++ overloads of OpenSHMEM 1.5's type-generic names (shmem_put, shmem_atomic_fetch_add,
 * shmem_wait_until, shmem_sum_reduce, ...), included by shmem.h when compiled as C++, where C11's
 * _Generic does not exist. Each overload forwards to the typed C name; the set of types is the
 * standard C types the C11 selection uses (typedefs such as int64_t are among them), so the same
 * calls compile in C and in C++. The RMA and AMO names also take a leading shmem_ctx_t. */
#ifndef SYMMETRA_SHMEM_CXX_H
#define SYMMETRA_SHMEM_CXX_H

#define SYMMETRA_CXX_RMA_TYPES(X)                                                                          \
  X(float, float) X(double, double) X(long double, longdouble) X(char, char) X(signed char, schar)         \
  X(short, short) X(int, int) X(long, long) X(long long, longlong) X(unsigned char, uchar)                 \
  X(unsigned short, ushort) X(unsigned int, uint) X(unsigned long, ulong) X(unsigned long long, ulonglong)
#define SYMMETRA_CXX_AMO_STD_TYPES(X)                                                              \
  X(int, int) X(long, long) X(long long, longlong) X(unsigned int, uint) X(unsigned long, ulong) \
  X(unsigned long long, ulonglong)
#define SYMMETRA_CXX_AMO_EXT_TYPES(X) SYMMETRA_CXX_AMO_STD_TYPES(X) X(float, float) X(double, double)
#define SYMMETRA_CXX_AMO_BIT_TYPES(X) \
  X(unsigned int, uint) X(unsigned long, ulong) X(unsigned long long, ulonglong) X(int, int32) X(long, int64)
#define SYMMETRA_CXX_P2P_TYPES(X)                                                                  \
  X(short, short) X(int, int) X(long, long) X(long long, longlong) X(unsigned short, ushort)       \
  X(unsigned int, uint) X(unsigned long, ulong) X(unsigned long long, ulonglong)
#define SYMMETRA_CXX_REDUCE_ARITH_TYPES(X)                                                              \
  X(char, char) X(signed char, schar) X(short, short) X(int, int) X(long, long) X(long long, longlong) \
  X(unsigned char, uchar) X(unsigned short, ushort) X(unsigned int, uint) X(unsigned long, ulong)     \
  X(unsigned long long, ulonglong) X(float, float) X(double, double) X(long double, longdouble)
#define SYMMETRA_CXX_REDUCE_BIT_TYPES(X)                                                              \
  X(unsigned char, uchar) X(unsigned short, ushort) X(unsigned int, uint) X(unsigned long, ulong)   \
  X(unsigned long long, ulonglong) X(signed char, int8) X(short, int16) X(int, int32) X(long, int64)

/* Both forms of one name: without and with a context. */
#define SYMMETRA_CXX_BOTH(R, NAME, N, PARAMS, ARGS)                                   \
  inline R shmem_##NAME PARAMS { return shmem_##N##_##NAME ARGS; }                  \
  inline R shmem_##NAME(shmem_ctx_t ctx, SYMMETRA_CXX_UNPAREN PARAMS) {             \
    return shmem_ctx_##N##_##NAME(ctx, SYMMETRA_CXX_UNPAREN ARGS);                  \
  }
#define SYMMETRA_CXX_UNPAREN(...) __VA_ARGS__

#define SYMMETRA_CXX_RMA(T, N)                                                                                   \
  SYMMETRA_CXX_BOTH(void, put, N, (T * dest, const T* source, size_t nelems, int pe), (dest, source, nelems, pe)) \
  SYMMETRA_CXX_BOTH(void, get, N, (T * dest, const T* source, size_t nelems, int pe), (dest, source, nelems, pe)) \
  SYMMETRA_CXX_BOTH(void, put_nbi, N, (T * dest, const T* source, size_t nelems, int pe), (dest, source, nelems, pe)) \
  SYMMETRA_CXX_BOTH(void, get_nbi, N, (T * dest, const T* source, size_t nelems, int pe), (dest, source, nelems, pe)) \
  SYMMETRA_CXX_BOTH(void, p, N, (T * dest, T value, int pe), (dest, value, pe))                                   \
  SYMMETRA_CXX_BOTH(T, g, N, (const T* source, int pe), (source, pe))                                             \
  SYMMETRA_CXX_BOTH(void, iput, N, (T * dest, const T* source, ptrdiff_t dst, ptrdiff_t sst, size_t nelems, int pe), \
                    (dest, source, dst, sst, nelems, pe))                                                         \
  SYMMETRA_CXX_BOTH(void, iget, N, (T * dest, const T* source, ptrdiff_t dst, ptrdiff_t sst, size_t nelems, int pe), \
                    (dest, source, dst, sst, nelems, pe))                                                         \
  SYMMETRA_CXX_BOTH(void, put_signal, N,                                                                          \
                    (T * dest, const T* source, size_t nelems, uint64_t* sig_addr, uint64_t signal, int sig_op, int pe), \
                    (dest, source, nelems, sig_addr, signal, sig_op, pe))                                         \
  SYMMETRA_CXX_BOTH(void, put_signal_nbi, N,                                                                      \
                    (T * dest, const T* source, size_t nelems, uint64_t* sig_addr, uint64_t signal, int sig_op, int pe), \
                    (dest, source, nelems, sig_addr, signal, sig_op, pe))                                         \
  inline int shmem_broadcast(shmem_team_t team, T* dest, const T* source, size_t nelems, int root) {               \
    return shmem_##N##_broadcast(team, dest, source, nelems, root);                                               \
  }                                                                                                               \
  inline int shmem_collect(shmem_team_t team, T* dest, const T* source, size_t nelems) {                          \
    return shmem_##N##_collect(team, dest, source, nelems);                                                       \
  }                                                                                                               \
  inline int shmem_fcollect(shmem_team_t team, T* dest, const T* source, size_t nelems) {                         \
    return shmem_##N##_fcollect(team, dest, source, nelems);                                                      \
  }                                                                                                               \
  inline int shmem_alltoall(shmem_team_t team, T* dest, const T* source, size_t nelems) {                         \
    return shmem_##N##_alltoall(team, dest, source, nelems);                                                      \
  }                                                                                                               \
  inline int shmem_alltoalls(shmem_team_t team, T* dest, const T* source, ptrdiff_t dst, ptrdiff_t sst, size_t nelems) { \
    return shmem_##N##_alltoalls(team, dest, source, dst, sst, nelems);                                           \
  }
SYMMETRA_CXX_RMA_TYPES(SYMMETRA_CXX_RMA)

#define SYMMETRA_CXX_AMO_STD(T, N)                                                                             \
  SYMMETRA_CXX_BOTH(T, atomic_fetch_inc, N, (T * dest, int pe), (dest, pe))                                     \
  SYMMETRA_CXX_BOTH(void, atomic_inc, N, (T * dest, int pe), (dest, pe))                                        \
  SYMMETRA_CXX_BOTH(T, atomic_fetch_add, N, (T * dest, T value, int pe), (dest, value, pe))                     \
  SYMMETRA_CXX_BOTH(void, atomic_add, N, (T * dest, T value, int pe), (dest, value, pe))                        \
  SYMMETRA_CXX_BOTH(T, atomic_compare_swap, N, (T * dest, T cond, T value, int pe), (dest, cond, value, pe))    \
  SYMMETRA_CXX_BOTH(void, atomic_fetch_inc_nbi, N, (T * fetch, T* dest, int pe), (fetch, dest, pe))             \
  SYMMETRA_CXX_BOTH(void, atomic_fetch_add_nbi, N, (T * fetch, T* dest, T value, int pe), (fetch, dest, value, pe)) \
  SYMMETRA_CXX_BOTH(void, atomic_compare_swap_nbi, N, (T * fetch, T* dest, T cond, T value, int pe),           \
                    (fetch, dest, cond, value, pe))
SYMMETRA_CXX_AMO_STD_TYPES(SYMMETRA_CXX_AMO_STD)
#define SYMMETRA_CXX_AMO_EXT(T, N)                                                                   \
  SYMMETRA_CXX_BOTH(T, atomic_fetch, N, (const T* source, int pe), (source, pe))                      \
  SYMMETRA_CXX_BOTH(void, atomic_set, N, (T * dest, T value, int pe), (dest, value, pe))              \
  SYMMETRA_CXX_BOTH(T, atomic_swap, N, (T * dest, T value, int pe), (dest, value, pe))                \
  SYMMETRA_CXX_BOTH(void, atomic_fetch_nbi, N, (T * fetch, const T* source, int pe), (fetch, source, pe)) \
  SYMMETRA_CXX_BOTH(void, atomic_swap_nbi, N, (T * fetch, T* dest, T value, int pe), (fetch, dest, value, pe))
SYMMETRA_CXX_AMO_EXT_TYPES(SYMMETRA_CXX_AMO_EXT)
#define SYMMETRA_CXX_AMO_BIT(T, N)                                                                          \
  SYMMETRA_CXX_BOTH(T, atomic_fetch_and, N, (T * dest, T value, int pe), (dest, value, pe))                  \
  SYMMETRA_CXX_BOTH(void, atomic_and, N, (T * dest, T value, int pe), (dest, value, pe))                     \
  SYMMETRA_CXX_BOTH(T, atomic_fetch_or, N, (T * dest, T value, int pe), (dest, value, pe))                   \
  SYMMETRA_CXX_BOTH(void, atomic_or, N, (T * dest, T value, int pe), (dest, value, pe))                      \
  SYMMETRA_CXX_BOTH(T, atomic_fetch_xor, N, (T * dest, T value, int pe), (dest, value, pe))                  \
  SYMMETRA_CXX_BOTH(void, atomic_xor, N, (T * dest, T value, int pe), (dest, value, pe))                     \
  SYMMETRA_CXX_BOTH(void, atomic_fetch_and_nbi, N, (T * fetch, T* dest, T value, int pe), (fetch, dest, value, pe)) \
  SYMMETRA_CXX_BOTH(void, atomic_fetch_or_nbi, N, (T * fetch, T* dest, T value, int pe), (fetch, dest, value, pe)) \
  SYMMETRA_CXX_BOTH(void, atomic_fetch_xor_nbi, N, (T * fetch, T* dest, T value, int pe), (fetch, dest, value, pe))
SYMMETRA_CXX_AMO_BIT_TYPES(SYMMETRA_CXX_AMO_BIT)

#define SYMMETRA_CXX_P2P(T, N)                                                                                \
  inline void shmem_wait_until(T* ivar, int cmp, T value) { shmem_##N##_wait_until(ivar, cmp, value); }        \
  inline int shmem_test(T* ivar, int cmp, T value) { return shmem_##N##_test(ivar, cmp, value); }               \
  inline void shmem_wait_until_all(T* ivars, size_t n, const int* status, int cmp, T value) {                   \
    shmem_##N##_wait_until_all(ivars, n, status, cmp, value);                                                   \
  }                                                                                                             \
  inline size_t shmem_wait_until_any(T* ivars, size_t n, const int* status, int cmp, T value) {                 \
    return shmem_##N##_wait_until_any(ivars, n, status, cmp, value);                                            \
  }                                                                                                             \
  inline size_t shmem_wait_until_some(T* ivars, size_t n, size_t* indices, const int* status, int cmp, T value) { \
    return shmem_##N##_wait_until_some(ivars, n, indices, status, cmp, value);                                  \
  }                                                                                                             \
  inline int shmem_test_all(T* ivars, size_t n, const int* status, int cmp, T value) {                          \
    return shmem_##N##_test_all(ivars, n, status, cmp, value);                                                  \
  }                                                                                                             \
  inline size_t shmem_test_any(T* ivars, size_t n, const int* status, int cmp, T value) {                       \
    return shmem_##N##_test_any(ivars, n, status, cmp, value);                                                  \
  }                                                                                                             \
  inline size_t shmem_test_some(T* ivars, size_t n, size_t* indices, const int* status, int cmp, T value) {     \
    return shmem_##N##_test_some(ivars, n, indices, status, cmp, value);                                        \
  }                                                                                                             \
  inline void shmem_wait_until_all_vector(T* ivars, size_t n, const int* status, int cmp, T* values) {          \
    shmem_##N##_wait_until_all_vector(ivars, n, status, cmp, values);                                           \
  }                                                                                                             \
  inline size_t shmem_wait_until_any_vector(T* ivars, size_t n, const int* status, int cmp, T* values) {        \
    return shmem_##N##_wait_until_any_vector(ivars, n, status, cmp, values);                                    \
  }                                                                                                             \
  inline size_t shmem_wait_until_some_vector(T* ivars, size_t n, size_t* indices, const int* status, int cmp,   \
                                             T* values) {                                                       \
    return shmem_##N##_wait_until_some_vector(ivars, n, indices, status, cmp, values);                          \
  }                                                                                                             \
  inline int shmem_test_all_vector(T* ivars, size_t n, const int* status, int cmp, T* values) {                 \
    return shmem_##N##_test_all_vector(ivars, n, status, cmp, values);                                          \
  }                                                                                                             \
  inline size_t shmem_test_any_vector(T* ivars, size_t n, const int* status, int cmp, T* values) {              \
    return shmem_##N##_test_any_vector(ivars, n, status, cmp, values);                                          \
  }                                                                                                             \
  inline size_t shmem_test_some_vector(T* ivars, size_t n, size_t* indices, const int* status, int cmp, T* values) { \
    return shmem_##N##_test_some_vector(ivars, n, indices, status, cmp, values);                                \
  }                                                                                                             \
  inline void shmem_wait(T* ivar, T value) { shmem_##N##_wait(ivar, value); } /* deprecated */
SYMMETRA_CXX_P2P_TYPES(SYMMETRA_CXX_P2P)

#define SYMMETRA_CXX_REDUCE(T, N, OP)                                                          \
  inline int shmem_##OP##_reduce(shmem_team_t team, T* dest, const T* source, size_t nreduce) { \
    return shmem_##N##_##OP##_reduce(team, dest, source, nreduce);                             \
  }
#define SYMMETRA_CXX_REDUCE_ARITH(T, N) \
  SYMMETRA_CXX_REDUCE(T, N, max) SYMMETRA_CXX_REDUCE(T, N, min) SYMMETRA_CXX_REDUCE(T, N, sum) SYMMETRA_CXX_REDUCE(T, N, prod)
#define SYMMETRA_CXX_REDUCE_BIT(T, N) \
  SYMMETRA_CXX_REDUCE(T, N, and) SYMMETRA_CXX_REDUCE(T, N, or) SYMMETRA_CXX_REDUCE(T, N, xor)
SYMMETRA_CXX_REDUCE_ARITH_TYPES(SYMMETRA_CXX_REDUCE_ARITH)
SYMMETRA_CXX_REDUCE_BIT_TYPES(SYMMETRA_CXX_REDUCE_BIT)

#endif /* SYMMETRA_SHMEM_CXX_H */
