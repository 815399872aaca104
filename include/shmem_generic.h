/* C11 type-generic names of OpenSHMEM 1.5 (shmem_put, shmem_atomic_fetch_add, shmem_wait_until,
 * shmem_sum_reduce, ...), included by shmem.h when compiled as C11 or later. Selection is on the
 * standard C types (the typedef'd names such as int64_t are the same types); the RMA and AMO
 * names also take a leading shmem_ctx_t, told apart by the number of arguments. */
#ifndef SYMMETRA_SHMEM_GENERIC_H
#define SYMMETRA_SHMEM_GENERIC_H

/* Selects on the object type behind pointer x (qualifiers dropped by lvalue conversion). */
#define SYMMETRA_G_RMA(x, pre, suf)              \
  _Generic(*(x), float                           \
           : pre##float##suf, double             \
           : pre##double##suf, long double       \
           : pre##longdouble##suf, char          \
           : pre##char##suf, signed char         \
           : pre##schar##suf, short              \
           : pre##short##suf, int                \
           : pre##int##suf, long                 \
           : pre##long##suf, long long           \
           : pre##longlong##suf, unsigned char   \
           : pre##uchar##suf, unsigned short     \
           : pre##ushort##suf, unsigned int      \
           : pre##uint##suf, unsigned long       \
           : pre##ulong##suf, unsigned long long \
           : pre##ulonglong##suf)
#define SYMMETRA_G_AMO_STD(x, pre, suf)          \
  _Generic(*(x), int                             \
           : pre##int##suf, long                 \
           : pre##long##suf, long long           \
           : pre##longlong##suf, unsigned int    \
           : pre##uint##suf, unsigned long       \
           : pre##ulong##suf, unsigned long long \
           : pre##ulonglong##suf)
#define SYMMETRA_G_AMO_EXT(x, pre, suf)          \
  _Generic(*(x), int                             \
           : pre##int##suf, long                 \
           : pre##long##suf, long long           \
           : pre##longlong##suf, unsigned int    \
           : pre##uint##suf, unsigned long       \
           : pre##ulong##suf, unsigned long long \
           : pre##ulonglong##suf, float          \
           : pre##float##suf, double             \
           : pre##double##suf)
#define SYMMETRA_G_AMO_BIT(x, pre, suf)          \
  _Generic(*(x), unsigned int                    \
           : pre##uint##suf, unsigned long       \
           : pre##ulong##suf, unsigned long long \
           : pre##ulonglong##suf, int            \
           : pre##int32##suf, long               \
           : pre##int64##suf)
#define SYMMETRA_G_P2P(x, suf)                    \
  _Generic(*(x), short                            \
           : shmem_short##suf, int                \
           : shmem_int##suf, long                 \
           : shmem_long##suf, long long           \
           : shmem_longlong##suf, unsigned short  \
           : shmem_ushort##suf, unsigned int      \
           : shmem_uint##suf, unsigned long       \
           : shmem_ulong##suf, unsigned long long \
           : shmem_ulonglong##suf)
#define SYMMETRA_G_REDUCE_ARITH(x, suf)           \
  _Generic(*(x), char                             \
           : shmem_char##suf, signed char         \
           : shmem_schar##suf, short              \
           : shmem_short##suf, int                \
           : shmem_int##suf, long                 \
           : shmem_long##suf, long long           \
           : shmem_longlong##suf, unsigned char   \
           : shmem_uchar##suf, unsigned short     \
           : shmem_ushort##suf, unsigned int      \
           : shmem_uint##suf, unsigned long       \
           : shmem_ulong##suf, unsigned long long \
           : shmem_ulonglong##suf, float          \
           : shmem_float##suf, double             \
           : shmem_double##suf, long double       \
           : shmem_longdouble##suf)
/* sum and prod also take the complex types. */
#define SYMMETRA_G_REDUCE_SUMPROD(x, suf)          \
  _Generic(*(x), char                              \
           : shmem_char##suf, signed char          \
           : shmem_schar##suf, short               \
           : shmem_short##suf, int                 \
           : shmem_int##suf, long                  \
           : shmem_long##suf, long long            \
           : shmem_longlong##suf, unsigned char    \
           : shmem_uchar##suf, unsigned short      \
           : shmem_ushort##suf, unsigned int       \
           : shmem_uint##suf, unsigned long        \
           : shmem_ulong##suf, unsigned long long  \
           : shmem_ulonglong##suf, float           \
           : shmem_float##suf, double              \
           : shmem_double##suf, long double        \
           : shmem_longdouble##suf, float _Complex \
           : shmem_complexf##suf, double _Complex  \
           : shmem_complexd##suf)
#define SYMMETRA_G_REDUCE_BIT(x, suf)             \
  _Generic(*(x), unsigned char                    \
           : shmem_uchar##suf, unsigned short     \
           : shmem_ushort##suf, unsigned int      \
           : shmem_uint##suf, unsigned long       \
           : shmem_ulong##suf, unsigned long long \
           : shmem_ulonglong##suf, signed char    \
           : shmem_int8##suf, short               \
           : shmem_int16##suf, int                \
           : shmem_int32##suf, long               \
           : shmem_int64##suf)

/* Picks the 5th (6th, ...) argument: how the ctx forms are told apart. */
#define SYMMETRA_ARG4(_1, _2, _3, _4, NAME, ...) NAME
#define SYMMETRA_ARG5(_1, _2, _3, _4, _5, NAME, ...) NAME
#define SYMMETRA_ARG6(_1, _2, _3, _4, _5, _6, NAME, ...) NAME
#define SYMMETRA_ARG7(_1, _2, _3, _4, _5, _6, _7, NAME, ...) NAME
#define SYMMETRA_ARG8(_1, _2, _3, _4, _5, _6, _7, _8, NAME, ...) NAME
#define SYMMETRA_FIRST(a, ...) a
#define SYMMETRA_SECOND(a, b, ...) b

/* RMA: (dest, source, nelems, pe) or (ctx, dest, source, nelems, pe); selected on dest. */
#define SYMMETRA_RMA4(suf, ...)                                                                \
  SYMMETRA_ARG5(__VA_ARGS__, SYMMETRA_G_RMA(SYMMETRA_SECOND(__VA_ARGS__, 0), shmem_ctx_, suf), \
                SYMMETRA_G_RMA(SYMMETRA_FIRST(__VA_ARGS__, 0), shmem_, suf), 0)                \
  (__VA_ARGS__)
#define shmem_put(...) SYMMETRA_RMA4(_put, __VA_ARGS__)
#define shmem_get(...) SYMMETRA_RMA4(_get, __VA_ARGS__)
#define shmem_put_nbi(...) SYMMETRA_RMA4(_put_nbi, __VA_ARGS__)
#define shmem_get_nbi(...) SYMMETRA_RMA4(_get_nbi, __VA_ARGS__)
/* p: (dest, value, pe) or (ctx, dest, value, pe); g: (source, pe) or (ctx, source, pe). */
#define shmem_p(...)                                                                          \
  SYMMETRA_ARG4(__VA_ARGS__, SYMMETRA_G_RMA(SYMMETRA_SECOND(__VA_ARGS__, 0), shmem_ctx_, _p), \
                SYMMETRA_G_RMA(SYMMETRA_FIRST(__VA_ARGS__, 0), shmem_, _p), 0)                \
  (__VA_ARGS__)
#define shmem_g(...)                                                                             \
  SYMMETRA_ARG4(__VA_ARGS__, 0, SYMMETRA_G_RMA(SYMMETRA_SECOND(__VA_ARGS__, 0), shmem_ctx_, _g), \
                SYMMETRA_G_RMA(SYMMETRA_FIRST(__VA_ARGS__, 0), shmem_, _g), 0)                   \
  (__VA_ARGS__)
/* iput/iget: 6 or 7 arguments. */
#define SYMMETRA_RMA6(suf, ...)                                                                \
  SYMMETRA_ARG7(__VA_ARGS__, SYMMETRA_G_RMA(SYMMETRA_SECOND(__VA_ARGS__, 0), shmem_ctx_, suf), \
                SYMMETRA_G_RMA(SYMMETRA_FIRST(__VA_ARGS__, 0), shmem_, suf), 0)                \
  (__VA_ARGS__)
#define shmem_iput(...) SYMMETRA_RMA6(_iput, __VA_ARGS__)
#define shmem_iget(...) SYMMETRA_RMA6(_iget, __VA_ARGS__)
/* put_signal: 7 or 8 arguments. */
#define SYMMETRA_RMA7(suf, ...)                                                                \
  SYMMETRA_ARG8(__VA_ARGS__, SYMMETRA_G_RMA(SYMMETRA_SECOND(__VA_ARGS__, 0), shmem_ctx_, suf), \
                SYMMETRA_G_RMA(SYMMETRA_FIRST(__VA_ARGS__, 0), shmem_, suf), 0)                \
  (__VA_ARGS__)
#define shmem_put_signal(...) SYMMETRA_RMA7(_put_signal, __VA_ARGS__)
#define shmem_put_signal_nbi(...) SYMMETRA_RMA7(_put_signal_nbi, __VA_ARGS__)
/* ibput/ibget (OpenSHMEM 1.6): 7 or 8 arguments too. */
#define shmem_ibput(...) SYMMETRA_RMA7(_ibput, __VA_ARGS__)
#define shmem_ibget(...) SYMMETRA_RMA7(_ibget, __VA_ARGS__)

/* AMOs. fetch/inc: (dest, pe) or (ctx, dest, pe); add/set/swap/...: (dest, value, pe) or with ctx;
 * compare_swap: (dest, cond, value, pe) or with ctx. Selected on dest. */
#define SYMMETRA_AMO2(G, suf, ...)                                                   \
  SYMMETRA_ARG4(__VA_ARGS__, 0, G(SYMMETRA_SECOND(__VA_ARGS__, 0), shmem_ctx_, suf), \
                G(SYMMETRA_FIRST(__VA_ARGS__, 0), shmem_, suf), 0)                   \
  (__VA_ARGS__)
#define SYMMETRA_AMO3(G, suf, ...)                                                \
  SYMMETRA_ARG4(__VA_ARGS__, G(SYMMETRA_SECOND(__VA_ARGS__, 0), shmem_ctx_, suf), \
                G(SYMMETRA_FIRST(__VA_ARGS__, 0), shmem_, suf), 0)                \
  (__VA_ARGS__)
#define SYMMETRA_AMO4(G, suf, ...)                                                \
  SYMMETRA_ARG5(__VA_ARGS__, G(SYMMETRA_SECOND(__VA_ARGS__, 0), shmem_ctx_, suf), \
                G(SYMMETRA_FIRST(__VA_ARGS__, 0), shmem_, suf), 0)                \
  (__VA_ARGS__)
#define shmem_atomic_fetch(...) SYMMETRA_AMO2(SYMMETRA_G_AMO_EXT, _atomic_fetch, __VA_ARGS__)
#define shmem_atomic_set(...) SYMMETRA_AMO3(SYMMETRA_G_AMO_EXT, _atomic_set, __VA_ARGS__)
#define shmem_atomic_swap(...) SYMMETRA_AMO3(SYMMETRA_G_AMO_EXT, _atomic_swap, __VA_ARGS__)
#define shmem_atomic_compare_swap(...) \
  SYMMETRA_AMO4(SYMMETRA_G_AMO_STD, _atomic_compare_swap, __VA_ARGS__)
#define shmem_atomic_fetch_inc(...) \
  SYMMETRA_AMO2(SYMMETRA_G_AMO_STD, _atomic_fetch_inc, __VA_ARGS__)
#define shmem_atomic_inc(...) SYMMETRA_AMO2(SYMMETRA_G_AMO_STD, _atomic_inc, __VA_ARGS__)
#define shmem_atomic_fetch_add(...) \
  SYMMETRA_AMO3(SYMMETRA_G_AMO_STD, _atomic_fetch_add, __VA_ARGS__)
#define shmem_atomic_add(...) SYMMETRA_AMO3(SYMMETRA_G_AMO_STD, _atomic_add, __VA_ARGS__)
#define shmem_atomic_fetch_and(...) \
  SYMMETRA_AMO3(SYMMETRA_G_AMO_BIT, _atomic_fetch_and, __VA_ARGS__)
#define shmem_atomic_and(...) SYMMETRA_AMO3(SYMMETRA_G_AMO_BIT, _atomic_and, __VA_ARGS__)
#define shmem_atomic_fetch_or(...) SYMMETRA_AMO3(SYMMETRA_G_AMO_BIT, _atomic_fetch_or, __VA_ARGS__)
#define shmem_atomic_or(...) SYMMETRA_AMO3(SYMMETRA_G_AMO_BIT, _atomic_or, __VA_ARGS__)
#define shmem_atomic_fetch_xor(...) \
  SYMMETRA_AMO3(SYMMETRA_G_AMO_BIT, _atomic_fetch_xor, __VA_ARGS__)
#define shmem_atomic_xor(...) SYMMETRA_AMO3(SYMMETRA_G_AMO_BIT, _atomic_xor, __VA_ARGS__)
/* The non-blocking fetching AMOs: (fetch, dest, ...) or (ctx, fetch, dest, ...), selected on
 * fetch, whose type is dest's. */
#define SYMMETRA_AMO5(G, suf, ...)                                                \
  SYMMETRA_ARG6(__VA_ARGS__, G(SYMMETRA_SECOND(__VA_ARGS__, 0), shmem_ctx_, suf), \
                G(SYMMETRA_FIRST(__VA_ARGS__, 0), shmem_, suf), 0)                \
  (__VA_ARGS__)
#define shmem_atomic_fetch_nbi(...) \
  SYMMETRA_AMO3(SYMMETRA_G_AMO_EXT, _atomic_fetch_nbi, __VA_ARGS__)
#define shmem_atomic_swap_nbi(...) SYMMETRA_AMO4(SYMMETRA_G_AMO_EXT, _atomic_swap_nbi, __VA_ARGS__)
#define shmem_atomic_compare_swap_nbi(...) \
  SYMMETRA_AMO5(SYMMETRA_G_AMO_STD, _atomic_compare_swap_nbi, __VA_ARGS__)
#define shmem_atomic_fetch_inc_nbi(...) \
  SYMMETRA_AMO3(SYMMETRA_G_AMO_STD, _atomic_fetch_inc_nbi, __VA_ARGS__)
#define shmem_atomic_fetch_add_nbi(...) \
  SYMMETRA_AMO4(SYMMETRA_G_AMO_STD, _atomic_fetch_add_nbi, __VA_ARGS__)
#define shmem_atomic_fetch_and_nbi(...) \
  SYMMETRA_AMO4(SYMMETRA_G_AMO_BIT, _atomic_fetch_and_nbi, __VA_ARGS__)
#define shmem_atomic_fetch_or_nbi(...) \
  SYMMETRA_AMO4(SYMMETRA_G_AMO_BIT, _atomic_fetch_or_nbi, __VA_ARGS__)
#define shmem_atomic_fetch_xor_nbi(...) \
  SYMMETRA_AMO4(SYMMETRA_G_AMO_BIT, _atomic_fetch_xor_nbi, __VA_ARGS__)

/* The deprecated AMO names of OpenSHMEM 1.3, on its types: int, long, long long (and float and
 * double for swap, fetch and set). No context forms. */
#define SYMMETRA_G_AMO_OLD(x, suf) \
  _Generic(*(x), int : shmem_int##suf, long : shmem_long##suf, long long : shmem_longlong##suf)
#define SYMMETRA_G_AMO_OLD_EXT(x, suf)  \
  _Generic(*(x), int                    \
           : shmem_int##suf, long       \
           : shmem_long##suf, long long \
           : shmem_longlong##suf, float \
           : shmem_float##suf, double   \
           : shmem_double##suf)
#define shmem_fadd(dest, ...) SYMMETRA_G_AMO_OLD(dest, _fadd)(dest, __VA_ARGS__)
#define shmem_finc(dest, ...) SYMMETRA_G_AMO_OLD(dest, _finc)(dest, __VA_ARGS__)
#define shmem_add(dest, ...) SYMMETRA_G_AMO_OLD(dest, _add)(dest, __VA_ARGS__)
#define shmem_inc(dest, ...) SYMMETRA_G_AMO_OLD(dest, _inc)(dest, __VA_ARGS__)
#define shmem_cswap(dest, ...) SYMMETRA_G_AMO_OLD(dest, _cswap)(dest, __VA_ARGS__)
#define shmem_swap(dest, ...) SYMMETRA_G_AMO_OLD_EXT(dest, _swap)(dest, __VA_ARGS__)
#define shmem_fetch(source, ...) SYMMETRA_G_AMO_OLD_EXT(source, _fetch)(source, __VA_ARGS__)
#define shmem_set(dest, ...) SYMMETRA_G_AMO_OLD_EXT(dest, _set)(dest, __VA_ARGS__)

/* Point-to-point synchronization: selected on ivar(s). */
#define shmem_wait_until(ivar, cmp, value) SYMMETRA_G_P2P(ivar, _wait_until)(ivar, cmp, value)
#define shmem_wait_until_all(ivars, ...) SYMMETRA_G_P2P(ivars, _wait_until_all)(ivars, __VA_ARGS__)
#define shmem_wait_until_any(ivars, ...) SYMMETRA_G_P2P(ivars, _wait_until_any)(ivars, __VA_ARGS__)
#define shmem_wait_until_some(ivars, ...) \
  SYMMETRA_G_P2P(ivars, _wait_until_some)(ivars, __VA_ARGS__)
#define shmem_wait_until_all_vector(ivars, ...) \
  SYMMETRA_G_P2P(ivars, _wait_until_all_vector)(ivars, __VA_ARGS__)
#define shmem_wait_until_any_vector(ivars, ...) \
  SYMMETRA_G_P2P(ivars, _wait_until_any_vector)(ivars, __VA_ARGS__)
#define shmem_wait_until_some_vector(ivars, ...) \
  SYMMETRA_G_P2P(ivars, _wait_until_some_vector)(ivars, __VA_ARGS__)
#define shmem_test(ivar, cmp, value) SYMMETRA_G_P2P(ivar, _test)(ivar, cmp, value)
#define shmem_test_all(ivars, ...) SYMMETRA_G_P2P(ivars, _test_all)(ivars, __VA_ARGS__)
#define shmem_test_any(ivars, ...) SYMMETRA_G_P2P(ivars, _test_any)(ivars, __VA_ARGS__)
#define shmem_test_some(ivars, ...) SYMMETRA_G_P2P(ivars, _test_some)(ivars, __VA_ARGS__)
#define shmem_test_all_vector(ivars, ...) \
  SYMMETRA_G_P2P(ivars, _test_all_vector)(ivars, __VA_ARGS__)
#define shmem_test_any_vector(ivars, ...) \
  SYMMETRA_G_P2P(ivars, _test_any_vector)(ivars, __VA_ARGS__)
#define shmem_test_some_vector(ivars, ...) \
  SYMMETRA_G_P2P(ivars, _test_some_vector)(ivars, __VA_ARGS__)
#define shmem_wait(ivar, value) SYMMETRA_G_P2P(ivar, _wait)(ivar, value)

/* shmem_sync(team) is the team sync of OpenSHMEM 1.5 (shmem_team_sync); shmem_sync(PE_start,
 * logPE_stride, PE_size, pSync) the deprecated active-set sync, told apart by the argument count.
 */
#define shmem_sync(...) \
  SYMMETRA_ARG4(__VA_ARGS__, shmem_sync, 0, 0, shmem_team_sync, 0)(__VA_ARGS__)

/* Team collectives: selected on dest. */
#define shmem_broadcast(team, dest, ...) \
  SYMMETRA_G_RMA(dest, shmem_, _broadcast)(team, dest, __VA_ARGS__)
#define shmem_collect(team, dest, ...) \
  SYMMETRA_G_RMA(dest, shmem_, _collect)(team, dest, __VA_ARGS__)
#define shmem_fcollect(team, dest, ...) \
  SYMMETRA_G_RMA(dest, shmem_, _fcollect)(team, dest, __VA_ARGS__)
#define shmem_alltoall(team, dest, ...) \
  SYMMETRA_G_RMA(dest, shmem_, _alltoall)(team, dest, __VA_ARGS__)
#define shmem_alltoalls(team, dest, ...) \
  SYMMETRA_G_RMA(dest, shmem_, _alltoalls)(team, dest, __VA_ARGS__)
#define shmem_and_reduce(team, dest, ...) \
  SYMMETRA_G_REDUCE_BIT(dest, _and_reduce)(team, dest, __VA_ARGS__)
#define shmem_or_reduce(team, dest, ...) \
  SYMMETRA_G_REDUCE_BIT(dest, _or_reduce)(team, dest, __VA_ARGS__)
#define shmem_xor_reduce(team, dest, ...) \
  SYMMETRA_G_REDUCE_BIT(dest, _xor_reduce)(team, dest, __VA_ARGS__)
#define shmem_max_reduce(team, dest, ...) \
  SYMMETRA_G_REDUCE_ARITH(dest, _max_reduce)(team, dest, __VA_ARGS__)
#define shmem_min_reduce(team, dest, ...) \
  SYMMETRA_G_REDUCE_ARITH(dest, _min_reduce)(team, dest, __VA_ARGS__)
#define shmem_sum_reduce(team, dest, ...) \
  SYMMETRA_G_REDUCE_SUMPROD(dest, _sum_reduce)(team, dest, __VA_ARGS__)
#define shmem_prod_reduce(team, dest, ...) \
  SYMMETRA_G_REDUCE_SUMPROD(dest, _prod_reduce)(team, dest, __VA_ARGS__)
/* Scans (OpenSHMEM 1.6): the types of sum_reduce. */
#define shmem_sum_inscan(team, dest, ...) \
  SYMMETRA_G_REDUCE_SUMPROD(dest, _sum_inscan)(team, dest, __VA_ARGS__)
#define shmem_sum_exscan(team, dest, ...) \
  SYMMETRA_G_REDUCE_SUMPROD(dest, _sum_exscan)(team, dest, __VA_ARGS__)

#endif /* SYMMETRA_SHMEM_GENERIC_H */
