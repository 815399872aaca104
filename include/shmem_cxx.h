/* C++ overloads of OpenSHMEM 1.5's type-generic names (shmem_put, shmem_atomic_fetch_add,
 * shmem_wait_until, shmem_sum_reduce, ...), included by shmem.h when compiled as C++, where C11's
 * _Generic does not exist. Each overload forwards to the typed C name; the set of types is the
 * standard C types the C11 selection uses (typedefs such as int64_t are among them), so the same
 * calls compile in C and in C++. The RMA and AMO names also take a leading shmem_ctx_t. */
#ifndef SYMMETRA_SHMEM_CXX_H
#define SYMMETRA_SHMEM_CXX_H

// clang-format off
#define SYMMETRA_CXX_RMA_TYPES(X)                                                                 \
  X(float, float) X(double, double) X(long double, longdouble) X(char, char)                      \
  X(signed char, schar) X(short, short) X(int, int) X(long, long) X(long long, longlong)          \
  X(unsigned char, uchar) X(unsigned short, ushort) X(unsigned int, uint) X(unsigned long, ulong) \
  X(unsigned long long, ulonglong)
#define SYMMETRA_CXX_AMO_STD_TYPES(X)                                                            \
  X(int, int) X(long, long) X(long long, longlong) X(unsigned int, uint) X(unsigned long, ulong) \
  X(unsigned long long, ulonglong)
#define SYMMETRA_CXX_AMO_EXT_TYPES(X) \
  SYMMETRA_CXX_AMO_STD_TYPES(X) X(float, float) X(double, double)
#define SYMMETRA_CXX_AMO_BIT_TYPES(X)                                                          \
  X(unsigned int, uint) X(unsigned long, ulong) X(unsigned long long, ulonglong) X(int, int32) \
  X(long, int64)
#define SYMMETRA_CXX_P2P_TYPES(X)                                                            \
  X(short, short) X(int, int) X(long, long) X(long long, longlong) X(unsigned short, ushort) \
  X(unsigned int, uint) X(unsigned long, ulong) X(unsigned long long, ulonglong)
#define SYMMETRA_CXX_REDUCE_ARITH_TYPES(X)                                                       \
  X(char, char) X(signed char, schar) X(short, short) X(int, int) X(long, long)                  \
  X(long long, longlong) X(unsigned char, uchar) X(unsigned short, ushort) X(unsigned int, uint) \
  X(unsigned long, ulong) X(unsigned long long, ulonglong) X(float, float) X(double, double)     \
  X(long double, longdouble)
#define SYMMETRA_CXX_REDUCE_BIT_TYPES(X)                                                          \
  X(unsigned char, uchar) X(unsigned short, ushort) X(unsigned int, uint) X(unsigned long, ulong) \
  X(unsigned long long, ulonglong) X(signed char, int8) X(short, int16) X(int, int32)             \
  X(long, int64)
// clang-format on

/* shmem_NAME(PARAMS) forwarding to the typed shmem_N_NAME; BOTH adds the form with a context. */
#define SYMMETRA_CXX_FWD(R, NAME, N, PARAMS, ARGS) \
  inline R shmem_##NAME PARAMS {                   \
    return shmem_##N##_##NAME ARGS;                \
  }
#define SYMMETRA_CXX_BOTH(R, NAME, N, PARAMS, ARGS)                     \
  SYMMETRA_CXX_FWD(R, NAME, N, PARAMS, ARGS)                            \
  inline R shmem_##NAME(shmem_ctx_t ctx, SYMMETRA_CXX_UNPAREN PARAMS) { \
    return shmem_ctx_##N##_##NAME(ctx, SYMMETRA_CXX_UNPAREN ARGS);      \
  }
#define SYMMETRA_CXX_UNPAREN(...) __VA_ARGS__

#define SYMMETRA_CXX_RMA(T, N)                                                                     \
  SYMMETRA_CXX_BOTH(void, put, N, (T * dest, const T* source, size_t nelems, int pe),              \
                    (dest, source, nelems, pe))                                                    \
  SYMMETRA_CXX_BOTH(void, get, N, (T * dest, const T* source, size_t nelems, int pe),              \
                    (dest, source, nelems, pe))                                                    \
  SYMMETRA_CXX_BOTH(void, put_nbi, N, (T * dest, const T* source, size_t nelems, int pe),          \
                    (dest, source, nelems, pe))                                                    \
  SYMMETRA_CXX_BOTH(void, get_nbi, N, (T * dest, const T* source, size_t nelems, int pe),          \
                    (dest, source, nelems, pe))                                                    \
  SYMMETRA_CXX_BOTH(void, p, N, (T * dest, T value, int pe), (dest, value, pe))                    \
  SYMMETRA_CXX_BOTH(T, g, N, (const T* source, int pe), (source, pe))                              \
  SYMMETRA_CXX_BOTH(                                                                               \
      void, iput, N,                                                                               \
      (T * dest, const T* source, ptrdiff_t dst, ptrdiff_t sst, size_t nelems, int pe),            \
      (dest, source, dst, sst, nelems, pe))                                                        \
  SYMMETRA_CXX_BOTH(                                                                               \
      void, iget, N,                                                                               \
      (T * dest, const T* source, ptrdiff_t dst, ptrdiff_t sst, size_t nelems, int pe),            \
      (dest, source, dst, sst, nelems, pe))                                                        \
  SYMMETRA_CXX_BOTH(void, ibput, N,                                                                \
                    (T * dest, const T* source, ptrdiff_t dst, ptrdiff_t sst, size_t bsize,        \
                     size_t nblocks, int pe),                                                      \
                    (dest, source, dst, sst, bsize, nblocks, pe))                                  \
  SYMMETRA_CXX_BOTH(void, ibget, N,                                                                \
                    (T * dest, const T* source, ptrdiff_t dst, ptrdiff_t sst, size_t bsize,        \
                     size_t nblocks, int pe),                                                      \
                    (dest, source, dst, sst, bsize, nblocks, pe))                                  \
  SYMMETRA_CXX_BOTH(void, put_signal, N,                                                           \
                    (T * dest, const T* source, size_t nelems, uint64_t* sig_addr,                 \
                     uint64_t signal, int sig_op, int pe),                                         \
                    (dest, source, nelems, sig_addr, signal, sig_op, pe))                          \
  SYMMETRA_CXX_BOTH(void, put_signal_nbi, N,                                                       \
                    (T * dest, const T* source, size_t nelems, uint64_t* sig_addr,                 \
                     uint64_t signal, int sig_op, int pe),                                         \
                    (dest, source, nelems, sig_addr, signal, sig_op, pe))                          \
  SYMMETRA_CXX_FWD(int, broadcast, N,                                                              \
                   (shmem_team_t team, T * dest, const T* source, size_t nelems, int root),        \
                   (team, dest, source, nelems, root))                                             \
  SYMMETRA_CXX_FWD(int, collect, N, (shmem_team_t team, T * dest, const T* source, size_t nelems), \
                   (team, dest, source, nelems))                                                   \
  SYMMETRA_CXX_FWD(int, fcollect, N,                                                               \
                   (shmem_team_t team, T * dest, const T* source, size_t nelems),                  \
                   (team, dest, source, nelems))                                                   \
  SYMMETRA_CXX_FWD(int, alltoall, N,                                                               \
                   (shmem_team_t team, T * dest, const T* source, size_t nelems),                  \
                   (team, dest, source, nelems))                                                   \
  SYMMETRA_CXX_FWD(                                                                                \
      int, alltoalls, N,                                                                           \
      (shmem_team_t team, T * dest, const T* source, ptrdiff_t dst, ptrdiff_t sst, size_t nelems), \
      (team, dest, source, dst, sst, nelems))
SYMMETRA_CXX_RMA_TYPES(SYMMETRA_CXX_RMA)

#define SYMMETRA_CXX_AMO_STD(T, N)                                                          \
  SYMMETRA_CXX_BOTH(T, atomic_fetch_inc, N, (T * dest, int pe), (dest, pe))                 \
  SYMMETRA_CXX_BOTH(void, atomic_inc, N, (T * dest, int pe), (dest, pe))                    \
  SYMMETRA_CXX_BOTH(T, atomic_fetch_add, N, (T * dest, T value, int pe), (dest, value, pe)) \
  SYMMETRA_CXX_BOTH(void, atomic_add, N, (T * dest, T value, int pe), (dest, value, pe))    \
  SYMMETRA_CXX_BOTH(T, atomic_compare_swap, N, (T * dest, T cond, T value, int pe),         \
                    (dest, cond, value, pe))                                                \
  SYMMETRA_CXX_BOTH(void, atomic_fetch_inc_nbi, N, (T * fetch, T * dest, int pe),           \
                    (fetch, dest, pe))                                                      \
  SYMMETRA_CXX_BOTH(void, atomic_fetch_add_nbi, N, (T * fetch, T * dest, T value, int pe),  \
                    (fetch, dest, value, pe))                                               \
  SYMMETRA_CXX_BOTH(void, atomic_compare_swap_nbi, N,                                       \
                    (T * fetch, T * dest, T cond, T value, int pe),                         \
                    (fetch, dest, cond, value, pe))
SYMMETRA_CXX_AMO_STD_TYPES(SYMMETRA_CXX_AMO_STD)
#define SYMMETRA_CXX_AMO_EXT(T, N)                                                       \
  SYMMETRA_CXX_BOTH(T, atomic_fetch, N, (const T* source, int pe), (source, pe))         \
  SYMMETRA_CXX_BOTH(void, atomic_set, N, (T * dest, T value, int pe), (dest, value, pe)) \
  SYMMETRA_CXX_BOTH(T, atomic_swap, N, (T * dest, T value, int pe), (dest, value, pe))   \
  SYMMETRA_CXX_BOTH(void, atomic_fetch_nbi, N, (T * fetch, const T* source, int pe),     \
                    (fetch, source, pe))                                                 \
  SYMMETRA_CXX_BOTH(void, atomic_swap_nbi, N, (T * fetch, T * dest, T value, int pe),    \
                    (fetch, dest, value, pe))
SYMMETRA_CXX_AMO_EXT_TYPES(SYMMETRA_CXX_AMO_EXT)
#define SYMMETRA_CXX_AMO_BIT(T, N)                                                          \
  SYMMETRA_CXX_BOTH(T, atomic_fetch_and, N, (T * dest, T value, int pe), (dest, value, pe)) \
  SYMMETRA_CXX_BOTH(void, atomic_and, N, (T * dest, T value, int pe), (dest, value, pe))    \
  SYMMETRA_CXX_BOTH(T, atomic_fetch_or, N, (T * dest, T value, int pe), (dest, value, pe))  \
  SYMMETRA_CXX_BOTH(void, atomic_or, N, (T * dest, T value, int pe), (dest, value, pe))     \
  SYMMETRA_CXX_BOTH(T, atomic_fetch_xor, N, (T * dest, T value, int pe), (dest, value, pe)) \
  SYMMETRA_CXX_BOTH(void, atomic_xor, N, (T * dest, T value, int pe), (dest, value, pe))    \
  SYMMETRA_CXX_BOTH(void, atomic_fetch_and_nbi, N, (T * fetch, T * dest, T value, int pe),  \
                    (fetch, dest, value, pe))                                               \
  SYMMETRA_CXX_BOTH(void, atomic_fetch_or_nbi, N, (T * fetch, T * dest, T value, int pe),   \
                    (fetch, dest, value, pe))                                               \
  SYMMETRA_CXX_BOTH(void, atomic_fetch_xor_nbi, N, (T * fetch, T * dest, T value, int pe),  \
                    (fetch, dest, value, pe))
SYMMETRA_CXX_AMO_BIT_TYPES(SYMMETRA_CXX_AMO_BIT)

/* The _all/_any/_some forms take (ivars, n, [indices,] status, cmp, value or values). */
#define SYMMETRA_CXX_P2P_SET(R, NAME, T, N, V)                                             \
  SYMMETRA_CXX_FWD(R, NAME, N, (T * ivars, size_t n, const int* status, int cmp, V value), \
                   (ivars, n, status, cmp, value))
#define SYMMETRA_CXX_P2P_SOME(NAME, T, N, V)                                                     \
  SYMMETRA_CXX_FWD(size_t, NAME, N,                                                              \
                   (T * ivars, size_t n, size_t * indices, const int* status, int cmp, V value), \
                   (ivars, n, indices, status, cmp, value))
#define SYMMETRA_CXX_P2P(T, N)                                                            \
  SYMMETRA_CXX_FWD(void, wait_until, N, (T * ivar, int cmp, T value), (ivar, cmp, value)) \
  SYMMETRA_CXX_FWD(int, test, N, (T * ivar, int cmp, T value), (ivar, cmp, value))        \
  SYMMETRA_CXX_FWD(void, wait, N, (T * ivar, T value), (ivar, value)) /* deprecated */    \
  SYMMETRA_CXX_P2P_SET(void, wait_until_all, T, N, T)                                     \
  SYMMETRA_CXX_P2P_SET(size_t, wait_until_any, T, N, T)                                   \
  SYMMETRA_CXX_P2P_SOME(wait_until_some, T, N, T)                                         \
  SYMMETRA_CXX_P2P_SET(int, test_all, T, N, T)                                            \
  SYMMETRA_CXX_P2P_SET(size_t, test_any, T, N, T)                                         \
  SYMMETRA_CXX_P2P_SOME(test_some, T, N, T)                                               \
  SYMMETRA_CXX_P2P_SET(void, wait_until_all_vector, T, N, T*)                             \
  SYMMETRA_CXX_P2P_SET(size_t, wait_until_any_vector, T, N, T*)                           \
  SYMMETRA_CXX_P2P_SOME(wait_until_some_vector, T, N, T*)                                 \
  SYMMETRA_CXX_P2P_SET(int, test_all_vector, T, N, T*)                                    \
  SYMMETRA_CXX_P2P_SET(size_t, test_any_vector, T, N, T*)                                 \
  SYMMETRA_CXX_P2P_SOME(test_some_vector, T, N, T*)
SYMMETRA_CXX_P2P_TYPES(SYMMETRA_CXX_P2P)

#define SYMMETRA_CXX_REDUCE(T, N, OP)                                              \
  SYMMETRA_CXX_FWD(int, OP##_reduce, N,                                            \
                   (shmem_team_t team, T * dest, const T* source, size_t nreduce), \
                   (team, dest, source, nreduce))
#define SYMMETRA_CXX_REDUCE_ARITH(T, N) \
  SYMMETRA_CXX_REDUCE(T, N, max)        \
  SYMMETRA_CXX_REDUCE(T, N, min) SYMMETRA_CXX_REDUCE(T, N, sum) SYMMETRA_CXX_REDUCE(T, N, prod)
#define SYMMETRA_CXX_REDUCE_BIT(T, N) \
  SYMMETRA_CXX_REDUCE(T, N, and) SYMMETRA_CXX_REDUCE(T, N, or) SYMMETRA_CXX_REDUCE(T, N, xor)
SYMMETRA_CXX_REDUCE_ARITH_TYPES(SYMMETRA_CXX_REDUCE_ARITH)
SYMMETRA_CXX_REDUCE_BIT_TYPES(SYMMETRA_CXX_REDUCE_BIT)
SYMMETRA_CXX_REDUCE(std::complex<float>, complexf, sum)
SYMMETRA_CXX_REDUCE(std::complex<float>, complexf, prod)
SYMMETRA_CXX_REDUCE(std::complex<double>, complexd, sum)
SYMMETRA_CXX_REDUCE(std::complex<double>, complexd, prod)
/* Scans (OpenSHMEM 1.6): the types of sum_reduce. */
#define SYMMETRA_CXX_SCAN(T, N)                                                   \
  SYMMETRA_CXX_FWD(int, sum_inscan, N,                                            \
                   (shmem_team_t team, T * dest, const T* source, size_t nelems), \
                   (team, dest, source, nelems))                                  \
  SYMMETRA_CXX_FWD(int, sum_exscan, N,                                            \
                   (shmem_team_t team, T * dest, const T* source, size_t nelems), \
                   (team, dest, source, nelems))
SYMMETRA_CXX_REDUCE_ARITH_TYPES(SYMMETRA_CXX_SCAN)
SYMMETRA_CXX_SCAN(std::complex<float>, complexf)
SYMMETRA_CXX_SCAN(std::complex<double>, complexd)

/* The deprecated AMO names of OpenSHMEM 1.3, on its types (int, long, long long; float and
 * double too for swap, fetch and set). */
#define SYMMETRA_CXX_AMO_OLD(T, N)                                               \
  SYMMETRA_CXX_FWD(T, fadd, N, (T * dest, T value, int pe), (dest, value, pe))   \
  SYMMETRA_CXX_FWD(T, finc, N, (T * dest, int pe), (dest, pe))                   \
  SYMMETRA_CXX_FWD(void, add, N, (T * dest, T value, int pe), (dest, value, pe)) \
  SYMMETRA_CXX_FWD(void, inc, N, (T * dest, int pe), (dest, pe))                 \
  SYMMETRA_CXX_FWD(T, cswap, N, (T * dest, T cond, T value, int pe), (dest, cond, value, pe))
#define SYMMETRA_CXX_AMO_OLD_EXT(T, N)                                         \
  SYMMETRA_CXX_FWD(T, swap, N, (T * dest, T value, int pe), (dest, value, pe)) \
  SYMMETRA_CXX_FWD(T, fetch, N, (const T* source, int pe), (source, pe))       \
  SYMMETRA_CXX_FWD(void, set, N, (T * dest, T value, int pe), (dest, value, pe))
SYMMETRA_CXX_AMO_OLD(int, int)
SYMMETRA_CXX_AMO_OLD(long, long)
SYMMETRA_CXX_AMO_OLD(long long, longlong)
SYMMETRA_CXX_AMO_OLD_EXT(int, int)
SYMMETRA_CXX_AMO_OLD_EXT(long, long)
SYMMETRA_CXX_AMO_OLD_EXT(long long, longlong)
SYMMETRA_CXX_AMO_OLD_EXT(float, float)
SYMMETRA_CXX_AMO_OLD_EXT(double, double)

/* shmem_sync(team): OpenSHMEM 1.5's team sync beside the deprecated active-set shmem_sync. */
inline int shmem_sync(shmem_team_t team) {
  return shmem_team_sync(team);
}

#endif /* SYMMETRA_SHMEM_CXX_H */
