/* Every function of the OpenSHMEM 1.5 C API and the parts of 1.6 Symmetra has (docs/openshmem.md),
 * declared through SYMMETRA_FN(name): shmem.h includes this file with SYMMETRA_FN(name) as name,
 * pshmem.h (the profiling interface) with pname. No include guard: it is meant to be included
 * twice. Not for direct inclusion. SYMMETRA_COMPLEXF / SYMMETRA_COMPLEXD are C's float/double
 * _Complex, std::complex in C++. */
#ifndef SYMMETRA_FN
#error "include shmem.h or pshmem.h, not symmetra/shmem_decls.h"
#endif

/* --- Setup, exit and query --- */
void SYMMETRA_FN(shmem_init)(void);
int SYMMETRA_FN(shmem_init_thread)(int requested, int* provided);
void SYMMETRA_FN(shmem_query_thread)(int* provided);
void SYMMETRA_FN(shmem_finalize)(void);
void SYMMETRA_FN(shmem_global_exit)(int status);
int SYMMETRA_FN(shmem_my_pe)(void);
int SYMMETRA_FN(shmem_n_pes)(void);
int SYMMETRA_FN(shmem_pe_accessible)(int pe);
int SYMMETRA_FN(shmem_addr_accessible)(const void* addr, int pe);
void* SYMMETRA_FN(shmem_ptr)(const void* dest, int pe);
void SYMMETRA_FN(shmem_info_get_version)(int* major, int* minor);
void SYMMETRA_FN(shmem_info_get_name)(char* name);
/* OpenSHMEM 1.6 */
void SYMMETRA_FN(shmem_query_initialized)(int* initialized);
/* Deprecated */
void SYMMETRA_FN(start_pes)(int npes);
int SYMMETRA_FN(_my_pe)(void);
int SYMMETRA_FN(_num_pes)(void);

/* --- Memory management --- */
void* SYMMETRA_FN(shmem_malloc)(size_t size);
void* SYMMETRA_FN(shmem_malloc_with_hints)(size_t size, long hints);
void* SYMMETRA_FN(shmem_calloc)(size_t count, size_t size);
void* SYMMETRA_FN(shmem_realloc)(void* ptr, size_t size);
void* SYMMETRA_FN(shmem_align)(size_t alignment, size_t size);
void SYMMETRA_FN(shmem_free)(void* ptr);
/* Deprecated */
void* SYMMETRA_FN(shmalloc)(size_t size);
void SYMMETRA_FN(shfree)(void* ptr);
void* SYMMETRA_FN(shrealloc)(void* ptr, size_t size);
void* SYMMETRA_FN(shmemalign)(size_t alignment, size_t size);

/* --- Teams --- */
int SYMMETRA_FN(shmem_team_my_pe)(shmem_team_t team);
int SYMMETRA_FN(shmem_team_n_pes)(shmem_team_t team);
int SYMMETRA_FN(shmem_team_get_config)(shmem_team_t team, long config_mask,
                                       shmem_team_config_t* config);
int SYMMETRA_FN(shmem_team_translate_pe)(shmem_team_t src_team, int src_pe, shmem_team_t dest_team);
int SYMMETRA_FN(shmem_team_split_strided)(shmem_team_t parent_team, int start, int stride, int size,
                                          const shmem_team_config_t* config, long config_mask,
                                          shmem_team_t* new_team);
int SYMMETRA_FN(shmem_team_split_2d)(shmem_team_t parent_team, int xrange,
                                     const shmem_team_config_t* xaxis_config, long xaxis_mask,
                                     shmem_team_t* xaxis_team,
                                     const shmem_team_config_t* yaxis_config, long yaxis_mask,
                                     shmem_team_t* yaxis_team);
void SYMMETRA_FN(shmem_team_destroy)(shmem_team_t team);
/* OpenSHMEM 1.6 */
void* SYMMETRA_FN(shmem_team_ptr)(shmem_team_t team, const void* dest, int pe);

/* --- Contexts --- */
int SYMMETRA_FN(shmem_ctx_create)(long options, shmem_ctx_t* ctx);
int SYMMETRA_FN(shmem_team_create_ctx)(shmem_team_t team, long options, shmem_ctx_t* ctx);
void SYMMETRA_FN(shmem_ctx_destroy)(shmem_ctx_t ctx);
int SYMMETRA_FN(shmem_ctx_get_team)(shmem_ctx_t ctx, shmem_team_t* team);
/* OpenSHMEM 1.6: hints, which Symmetra accepts and needs nothing for. */
void SYMMETRA_FN(shmem_ctx_session_start)(shmem_ctx_t ctx, long options,
                                          const shmem_ctx_session_config_t* config,
                                          long config_mask);
void SYMMETRA_FN(shmem_ctx_session_stop)(shmem_ctx_t ctx);

/* --- Remote memory access --- */
#define SYMMETRA_DECL_RMA(T, N)                                                                    \
  void SYMMETRA_FN(shmem_##N##_put)(T * dest, const T* source, size_t nelems, int pe);             \
  void SYMMETRA_FN(shmem_ctx_##N##_put)(shmem_ctx_t ctx, T * dest, const T* source, size_t nelems, \
                                        int pe);                                                   \
  void SYMMETRA_FN(shmem_##N##_get)(T * dest, const T* source, size_t nelems, int pe);             \
  void SYMMETRA_FN(shmem_ctx_##N##_get)(shmem_ctx_t ctx, T * dest, const T* source, size_t nelems, \
                                        int pe);                                                   \
  void SYMMETRA_FN(shmem_##N##_put_nbi)(T * dest, const T* source, size_t nelems, int pe);         \
  void SYMMETRA_FN(shmem_ctx_##N##_put_nbi)(shmem_ctx_t ctx, T * dest, const T* source,            \
                                            size_t nelems, int pe);                                \
  void SYMMETRA_FN(shmem_##N##_get_nbi)(T * dest, const T* source, size_t nelems, int pe);         \
  void SYMMETRA_FN(shmem_ctx_##N##_get_nbi)(shmem_ctx_t ctx, T * dest, const T* source,            \
                                            size_t nelems, int pe);                                \
  void SYMMETRA_FN(shmem_##N##_p)(T * dest, T value, int pe);                                      \
  void SYMMETRA_FN(shmem_ctx_##N##_p)(shmem_ctx_t ctx, T * dest, T value, int pe);                 \
  T SYMMETRA_FN(shmem_##N##_g)(const T* source, int pe);                                           \
  T SYMMETRA_FN(shmem_ctx_##N##_g)(shmem_ctx_t ctx, const T* source, int pe);                      \
  void SYMMETRA_FN(shmem_##N##_iput)(T * dest, const T* source, ptrdiff_t dst, ptrdiff_t sst,      \
                                     size_t nelems, int pe);                                       \
  void SYMMETRA_FN(shmem_ctx_##N##_iput)(shmem_ctx_t ctx, T * dest, const T* source,               \
                                         ptrdiff_t dst, ptrdiff_t sst, size_t nelems, int pe);     \
  void SYMMETRA_FN(shmem_##N##_iget)(T * dest, const T* source, ptrdiff_t dst, ptrdiff_t sst,      \
                                     size_t nelems, int pe);                                       \
  void SYMMETRA_FN(shmem_ctx_##N##_iget)(shmem_ctx_t ctx, T * dest, const T* source,               \
                                         ptrdiff_t dst, ptrdiff_t sst, size_t nelems, int pe);     \
  void SYMMETRA_FN(shmem_##N##_put_signal)(T * dest, const T* source, size_t nelems,               \
                                           uint64_t* sig_addr, uint64_t signal, int sig_op,        \
                                           int pe);                                                \
  void SYMMETRA_FN(shmem_ctx_##N##_put_signal)(shmem_ctx_t ctx, T * dest, const T* source,         \
                                               size_t nelems, uint64_t* sig_addr, uint64_t signal, \
                                               int sig_op, int pe);                                \
  void SYMMETRA_FN(shmem_##N##_put_signal_nbi)(T * dest, const T* source, size_t nelems,           \
                                               uint64_t* sig_addr, uint64_t signal, int sig_op,    \
                                               int pe);                                            \
  void SYMMETRA_FN(shmem_ctx_##N##_put_signal_nbi)(shmem_ctx_t ctx, T * dest, const T* source,     \
                                                   size_t nelems, uint64_t* sig_addr,              \
                                                   uint64_t signal, int sig_op, int pe);
SHMEM_RMA_TYPES(SYMMETRA_DECL_RMA)

#define SYMMETRA_SIZED_BITS(X) X(8) X(16) X(32) X(64) X(128)
#define SYMMETRA_DECL_SIZED(B)                                                                     \
  void SYMMETRA_FN(shmem_put##B)(void* dest, const void* source, size_t nelems, int pe);           \
  void SYMMETRA_FN(shmem_ctx_put##B)(shmem_ctx_t ctx, void* dest, const void* source,              \
                                     size_t nelems, int pe);                                       \
  void SYMMETRA_FN(shmem_get##B)(void* dest, const void* source, size_t nelems, int pe);           \
  void SYMMETRA_FN(shmem_ctx_get##B)(shmem_ctx_t ctx, void* dest, const void* source,              \
                                     size_t nelems, int pe);                                       \
  void SYMMETRA_FN(shmem_put##B##_nbi)(void* dest, const void* source, size_t nelems, int pe);     \
  void SYMMETRA_FN(shmem_ctx_put##B##_nbi)(shmem_ctx_t ctx, void* dest, const void* source,        \
                                           size_t nelems, int pe);                                 \
  void SYMMETRA_FN(shmem_get##B##_nbi)(void* dest, const void* source, size_t nelems, int pe);     \
  void SYMMETRA_FN(shmem_ctx_get##B##_nbi)(shmem_ctx_t ctx, void* dest, const void* source,        \
                                           size_t nelems, int pe);                                 \
  void SYMMETRA_FN(shmem_iput##B)(void* dest, const void* source, ptrdiff_t dst, ptrdiff_t sst,    \
                                  size_t nelems, int pe);                                          \
  void SYMMETRA_FN(shmem_ctx_iput##B)(shmem_ctx_t ctx, void* dest, const void* source,             \
                                      ptrdiff_t dst, ptrdiff_t sst, size_t nelems, int pe);        \
  void SYMMETRA_FN(shmem_iget##B)(void* dest, const void* source, ptrdiff_t dst, ptrdiff_t sst,    \
                                  size_t nelems, int pe);                                          \
  void SYMMETRA_FN(shmem_ctx_iget##B)(shmem_ctx_t ctx, void* dest, const void* source,             \
                                      ptrdiff_t dst, ptrdiff_t sst, size_t nelems, int pe);        \
  void SYMMETRA_FN(shmem_put##B##_signal)(void* dest, const void* source, size_t nelems,           \
                                          uint64_t* sig_addr, uint64_t signal, int sig_op,         \
                                          int pe);                                                 \
  void SYMMETRA_FN(shmem_ctx_put##B##_signal)(shmem_ctx_t ctx, void* dest, const void* source,     \
                                              size_t nelems, uint64_t* sig_addr, uint64_t signal,  \
                                              int sig_op, int pe);                                 \
  void SYMMETRA_FN(shmem_put##B##_signal_nbi)(void* dest, const void* source, size_t nelems,       \
                                              uint64_t* sig_addr, uint64_t signal, int sig_op,     \
                                              int pe);                                             \
  void SYMMETRA_FN(shmem_ctx_put##B##_signal_nbi)(shmem_ctx_t ctx, void* dest, const void* source, \
                                                  size_t nelems, uint64_t* sig_addr,               \
                                                  uint64_t signal, int sig_op, int pe);
SYMMETRA_SIZED_BITS(SYMMETRA_DECL_SIZED)
SYMMETRA_DECL_SIZED(mem)
/* OpenSHMEM 1.6: nblocks blocks of bsize elements, block k from source + k * sst to
 * dest + k * dst. */
#define SYMMETRA_DECL_BLOCKED(T, N)                                                            \
  void SYMMETRA_FN(shmem_##N##_ibput)(T * dest, const T* source, ptrdiff_t dst, ptrdiff_t sst, \
                                      size_t bsize, size_t nblocks, int pe);                   \
  void SYMMETRA_FN(shmem_ctx_##N##_ibput)(shmem_ctx_t ctx, T * dest, const T* source,          \
                                          ptrdiff_t dst, ptrdiff_t sst, size_t bsize,          \
                                          size_t nblocks, int pe);                             \
  void SYMMETRA_FN(shmem_##N##_ibget)(T * dest, const T* source, ptrdiff_t dst, ptrdiff_t sst, \
                                      size_t bsize, size_t nblocks, int pe);                   \
  void SYMMETRA_FN(shmem_ctx_##N##_ibget)(shmem_ctx_t ctx, T * dest, const T* source,          \
                                          ptrdiff_t dst, ptrdiff_t sst, size_t bsize,          \
                                          size_t nblocks, int pe);
SHMEM_RMA_TYPES(SYMMETRA_DECL_BLOCKED)
#define SYMMETRA_DECL_SIZED_BLOCKED(B)                                                             \
  void SYMMETRA_FN(shmem_ibput##B)(void* dest, const void* source, ptrdiff_t dst, ptrdiff_t sst,   \
                                   size_t bsize, size_t nblocks, int pe);                          \
  void SYMMETRA_FN(shmem_ctx_ibput##B)(shmem_ctx_t ctx, void* dest, const void* source,            \
                                       ptrdiff_t dst, ptrdiff_t sst, size_t bsize, size_t nblocks, \
                                       int pe);                                                    \
  void SYMMETRA_FN(shmem_ibget##B)(void* dest, const void* source, ptrdiff_t dst, ptrdiff_t sst,   \
                                   size_t bsize, size_t nblocks, int pe);                          \
  void SYMMETRA_FN(shmem_ctx_ibget##B)(shmem_ctx_t ctx, void* dest, const void* source,            \
                                       ptrdiff_t dst, ptrdiff_t sst, size_t bsize, size_t nblocks, \
                                       int pe);
SYMMETRA_SIZED_BITS(SYMMETRA_DECL_SIZED_BLOCKED)

uint64_t SYMMETRA_FN(shmem_signal_fetch)(const uint64_t* sig_addr);
uint64_t SYMMETRA_FN(shmem_signal_wait_until)(uint64_t* sig_addr, int cmp, uint64_t cmp_value);
/* OpenSHMEM 1.6: the signal's update alone, atomic like put-with-signal's. */
void SYMMETRA_FN(shmem_signal_add)(uint64_t* sig_addr, uint64_t signal, int pe);
void SYMMETRA_FN(shmem_ctx_signal_add)(shmem_ctx_t ctx, uint64_t* sig_addr, uint64_t signal,
                                       int pe);
void SYMMETRA_FN(shmem_signal_set)(uint64_t* sig_addr, uint64_t signal, int pe);
void SYMMETRA_FN(shmem_ctx_signal_set)(shmem_ctx_t ctx, uint64_t* sig_addr, uint64_t signal,
                                       int pe);

/* --- Atomic memory operations --- */
#define SYMMETRA_DECL_AMO_STD(T, N)                                                               \
  T SYMMETRA_FN(shmem_##N##_atomic_fetch_inc)(T * dest, int pe);                                  \
  T SYMMETRA_FN(shmem_ctx_##N##_atomic_fetch_inc)(shmem_ctx_t ctx, T * dest, int pe);             \
  void SYMMETRA_FN(shmem_##N##_atomic_inc)(T * dest, int pe);                                     \
  void SYMMETRA_FN(shmem_ctx_##N##_atomic_inc)(shmem_ctx_t ctx, T * dest, int pe);                \
  T SYMMETRA_FN(shmem_##N##_atomic_fetch_add)(T * dest, T value, int pe);                         \
  T SYMMETRA_FN(shmem_ctx_##N##_atomic_fetch_add)(shmem_ctx_t ctx, T * dest, T value, int pe);    \
  void SYMMETRA_FN(shmem_##N##_atomic_add)(T * dest, T value, int pe);                            \
  void SYMMETRA_FN(shmem_ctx_##N##_atomic_add)(shmem_ctx_t ctx, T * dest, T value, int pe);       \
  T SYMMETRA_FN(shmem_##N##_atomic_compare_swap)(T * dest, T cond, T value, int pe);              \
  T SYMMETRA_FN(shmem_ctx_##N##_atomic_compare_swap)(shmem_ctx_t ctx, T * dest, T cond, T value,  \
                                                     int pe);                                     \
  void SYMMETRA_FN(shmem_##N##_atomic_fetch_inc_nbi)(T * fetch, T * dest, int pe);                \
  void SYMMETRA_FN(shmem_ctx_##N##_atomic_fetch_inc_nbi)(shmem_ctx_t ctx, T * fetch, T * dest,    \
                                                         int pe);                                 \
  void SYMMETRA_FN(shmem_##N##_atomic_fetch_add_nbi)(T * fetch, T * dest, T value, int pe);       \
  void SYMMETRA_FN(shmem_ctx_##N##_atomic_fetch_add_nbi)(shmem_ctx_t ctx, T * fetch, T * dest,    \
                                                         T value, int pe);                        \
  void SYMMETRA_FN(shmem_##N##_atomic_compare_swap_nbi)(T * fetch, T * dest, T cond, T value,     \
                                                        int pe);                                  \
  void SYMMETRA_FN(shmem_ctx_##N##_atomic_compare_swap_nbi)(shmem_ctx_t ctx, T * fetch, T * dest, \
                                                            T cond, T value, int pe);
SHMEM_AMO_STANDARD_TYPES(SYMMETRA_DECL_AMO_STD)
#define SYMMETRA_DECL_AMO_EXT(T, N)                                                                \
  T SYMMETRA_FN(shmem_##N##_atomic_fetch)(const T* source, int pe);                                \
  T SYMMETRA_FN(shmem_ctx_##N##_atomic_fetch)(shmem_ctx_t ctx, const T* source, int pe);           \
  void SYMMETRA_FN(shmem_##N##_atomic_set)(T * dest, T value, int pe);                             \
  void SYMMETRA_FN(shmem_ctx_##N##_atomic_set)(shmem_ctx_t ctx, T * dest, T value, int pe);        \
  T SYMMETRA_FN(shmem_##N##_atomic_swap)(T * dest, T value, int pe);                               \
  T SYMMETRA_FN(shmem_ctx_##N##_atomic_swap)(shmem_ctx_t ctx, T * dest, T value, int pe);          \
  void SYMMETRA_FN(shmem_##N##_atomic_fetch_nbi)(T * fetch, const T* source, int pe);              \
  void SYMMETRA_FN(shmem_ctx_##N##_atomic_fetch_nbi)(shmem_ctx_t ctx, T * fetch, const T* source,  \
                                                     int pe);                                      \
  void SYMMETRA_FN(shmem_##N##_atomic_swap_nbi)(T * fetch, T * dest, T value, int pe);             \
  void SYMMETRA_FN(shmem_ctx_##N##_atomic_swap_nbi)(shmem_ctx_t ctx, T * fetch, T * dest, T value, \
                                                    int pe);
SHMEM_AMO_EXTENDED_TYPES(SYMMETRA_DECL_AMO_EXT)
#define SYMMETRA_DECL_AMO_BIT(T, N)                                                            \
  T SYMMETRA_FN(shmem_##N##_atomic_fetch_and)(T * dest, T value, int pe);                      \
  T SYMMETRA_FN(shmem_ctx_##N##_atomic_fetch_and)(shmem_ctx_t ctx, T * dest, T value, int pe); \
  void SYMMETRA_FN(shmem_##N##_atomic_and)(T * dest, T value, int pe);                         \
  void SYMMETRA_FN(shmem_ctx_##N##_atomic_and)(shmem_ctx_t ctx, T * dest, T value, int pe);    \
  T SYMMETRA_FN(shmem_##N##_atomic_fetch_or)(T * dest, T value, int pe);                       \
  T SYMMETRA_FN(shmem_ctx_##N##_atomic_fetch_or)(shmem_ctx_t ctx, T * dest, T value, int pe);  \
  void SYMMETRA_FN(shmem_##N##_atomic_or)(T * dest, T value, int pe);                          \
  void SYMMETRA_FN(shmem_ctx_##N##_atomic_or)(shmem_ctx_t ctx, T * dest, T value, int pe);     \
  T SYMMETRA_FN(shmem_##N##_atomic_fetch_xor)(T * dest, T value, int pe);                      \
  T SYMMETRA_FN(shmem_ctx_##N##_atomic_fetch_xor)(shmem_ctx_t ctx, T * dest, T value, int pe); \
  void SYMMETRA_FN(shmem_##N##_atomic_xor)(T * dest, T value, int pe);                         \
  void SYMMETRA_FN(shmem_ctx_##N##_atomic_xor)(shmem_ctx_t ctx, T * dest, T value, int pe);    \
  void SYMMETRA_FN(shmem_##N##_atomic_fetch_and_nbi)(T * fetch, T * dest, T value, int pe);    \
  void SYMMETRA_FN(shmem_ctx_##N##_atomic_fetch_and_nbi)(shmem_ctx_t ctx, T * fetch, T * dest, \
                                                         T value, int pe);                     \
  void SYMMETRA_FN(shmem_##N##_atomic_fetch_or_nbi)(T * fetch, T * dest, T value, int pe);     \
  void SYMMETRA_FN(shmem_ctx_##N##_atomic_fetch_or_nbi)(shmem_ctx_t ctx, T * fetch, T * dest,  \
                                                        T value, int pe);                      \
  void SYMMETRA_FN(shmem_##N##_atomic_fetch_xor_nbi)(T * fetch, T * dest, T value, int pe);    \
  void SYMMETRA_FN(shmem_ctx_##N##_atomic_fetch_xor_nbi)(shmem_ctx_t ctx, T * fetch, T * dest, \
                                                         T value, int pe);
SHMEM_AMO_BITWISE_TYPES(SYMMETRA_DECL_AMO_BIT)

/* Deprecated AMO names (OpenSHMEM 1.3). */
#define SYMMETRA_DECL_AMO_OLD(T, N)                                    \
  T SYMMETRA_FN(shmem_##N##_fadd)(T * dest, T value, int pe);          \
  T SYMMETRA_FN(shmem_##N##_finc)(T * dest, int pe);                   \
  void SYMMETRA_FN(shmem_##N##_add)(T * dest, T value, int pe);        \
  void SYMMETRA_FN(shmem_##N##_inc)(T * dest, int pe);                 \
  T SYMMETRA_FN(shmem_##N##_cswap)(T * dest, T cond, T value, int pe); \
  T SYMMETRA_FN(shmem_##N##_swap)(T * dest, T value, int pe);          \
  T SYMMETRA_FN(shmem_##N##_fetch)(const T* source, int pe);           \
  void SYMMETRA_FN(shmem_##N##_set)(T * dest, T value, int pe);
SYMMETRA_DECL_AMO_OLD(int, int)
SYMMETRA_DECL_AMO_OLD(long, long)
SYMMETRA_DECL_AMO_OLD(long long, longlong)
float SYMMETRA_FN(shmem_float_swap)(float* dest, float value, int pe);
double SYMMETRA_FN(shmem_double_swap)(double* dest, double value, int pe);
float SYMMETRA_FN(shmem_float_fetch)(const float* source, int pe);
double SYMMETRA_FN(shmem_double_fetch)(const double* source, int pe);
void SYMMETRA_FN(shmem_float_set)(float* dest, float value, int pe);
void SYMMETRA_FN(shmem_double_set)(double* dest, double value, int pe);

/* --- Point-to-point synchronization --- */
#define SYMMETRA_DECL_P2P(T, N)                                                                    \
  void SYMMETRA_FN(shmem_##N##_wait_until)(T * ivar, int cmp, T cmp_value);                        \
  void SYMMETRA_FN(shmem_##N##_wait_until_all)(T * ivars, size_t nelems, const int* status,        \
                                               int cmp, T cmp_value);                              \
  size_t SYMMETRA_FN(shmem_##N##_wait_until_any)(T * ivars, size_t nelems, const int* status,      \
                                                 int cmp, T cmp_value);                            \
  size_t SYMMETRA_FN(shmem_##N##_wait_until_some)(T * ivars, size_t nelems, size_t * indices,      \
                                                  const int* status, int cmp, T cmp_value);        \
  void SYMMETRA_FN(shmem_##N##_wait_until_all_vector)(T * ivars, size_t nelems, const int* status, \
                                                      int cmp, T* cmp_values);                     \
  size_t SYMMETRA_FN(shmem_##N##_wait_until_any_vector)(                                           \
      T * ivars, size_t nelems, const int* status, int cmp, T* cmp_values);                        \
  size_t SYMMETRA_FN(shmem_##N##_wait_until_some_vector)(                                          \
      T * ivars, size_t nelems, size_t * indices, const int* status, int cmp, T* cmp_values);      \
  int SYMMETRA_FN(shmem_##N##_test)(T * ivar, int cmp, T cmp_value);                               \
  int SYMMETRA_FN(shmem_##N##_test_all)(T * ivars, size_t nelems, const int* status, int cmp,      \
                                        T cmp_value);                                              \
  size_t SYMMETRA_FN(shmem_##N##_test_any)(T * ivars, size_t nelems, const int* status, int cmp,   \
                                           T cmp_value);                                           \
  size_t SYMMETRA_FN(shmem_##N##_test_some)(T * ivars, size_t nelems, size_t * indices,            \
                                            const int* status, int cmp, T cmp_value);              \
  int SYMMETRA_FN(shmem_##N##_test_all_vector)(T * ivars, size_t nelems, const int* status,        \
                                               int cmp, T* cmp_values);                            \
  size_t SYMMETRA_FN(shmem_##N##_test_any_vector)(T * ivars, size_t nelems, const int* status,     \
                                                  int cmp, T* cmp_values);                         \
  size_t SYMMETRA_FN(shmem_##N##_test_some_vector)(T * ivars, size_t nelems, size_t * indices,     \
                                                   const int* status, int cmp, T* cmp_values);     \
  void SYMMETRA_FN(shmem_##N##_wait)(T * ivar, T cmp_value);
SHMEM_P2P_SYNC_TYPES(SYMMETRA_DECL_P2P)

/* --- Memory ordering and barriers --- */
void SYMMETRA_FN(shmem_fence)(void);
void SYMMETRA_FN(shmem_ctx_fence)(shmem_ctx_t ctx);
void SYMMETRA_FN(shmem_quiet)(void);
void SYMMETRA_FN(shmem_ctx_quiet)(shmem_ctx_t ctx);
/* OpenSHMEM 1.6: completes the operations to the PEs named (numbered in the context's team). */
void SYMMETRA_FN(shmem_pe_quiet)(const int* target_pes, size_t npes);
void SYMMETRA_FN(shmem_ctx_pe_quiet)(shmem_ctx_t ctx, const int* target_pes, size_t npes);
void SYMMETRA_FN(shmem_barrier_all)(void);
void SYMMETRA_FN(shmem_sync_all)(void);
int SYMMETRA_FN(shmem_team_sync)(shmem_team_t team);
/* Deprecated active-set forms. */
void SYMMETRA_FN(shmem_barrier)(int PE_start, int logPE_stride, int PE_size, long* pSync);
void SYMMETRA_FN(shmem_sync)(int PE_start, int logPE_stride, int PE_size, long* pSync);

/* --- Collectives over teams --- */
int SYMMETRA_FN(shmem_broadcastmem)(shmem_team_t team, void* dest, const void* source,
                                    size_t nelems, int PE_root);
int SYMMETRA_FN(shmem_collectmem)(shmem_team_t team, void* dest, const void* source, size_t nelems);
int SYMMETRA_FN(shmem_fcollectmem)(shmem_team_t team, void* dest, const void* source,
                                   size_t nelems);
int SYMMETRA_FN(shmem_alltoallmem)(shmem_team_t team, void* dest, const void* source,
                                   size_t nelems);
int SYMMETRA_FN(shmem_alltoallsmem)(shmem_team_t team, void* dest, const void* source,
                                    ptrdiff_t dst, ptrdiff_t sst, size_t nelems);
#define SYMMETRA_DECL_COLL(T, N)                                                       \
  int SYMMETRA_FN(shmem_##N##_broadcast)(shmem_team_t team, T * dest, const T* source, \
                                         size_t nelems, int PE_root);                  \
  int SYMMETRA_FN(shmem_##N##_collect)(shmem_team_t team, T * dest, const T* source,   \
                                       size_t nelems);                                 \
  int SYMMETRA_FN(shmem_##N##_fcollect)(shmem_team_t team, T * dest, const T* source,  \
                                        size_t nelems);                                \
  int SYMMETRA_FN(shmem_##N##_alltoall)(shmem_team_t team, T * dest, const T* source,  \
                                        size_t nelems);                                \
  int SYMMETRA_FN(shmem_##N##_alltoalls)(shmem_team_t team, T * dest, const T* source, \
                                         ptrdiff_t dst, ptrdiff_t sst, size_t nelems);
SHMEM_RMA_TYPES(SYMMETRA_DECL_COLL)
#define SYMMETRA_DECL_REDUCE(T, N, OP)                                                     \
  int SYMMETRA_FN(shmem_##N##_##OP##_reduce)(shmem_team_t team, T * dest, const T* source, \
                                             size_t nreduce);
#define SYMMETRA_DECL_REDUCE_BIT(T, N) \
  SYMMETRA_DECL_REDUCE(T, N, and) SYMMETRA_DECL_REDUCE(T, N, or) SYMMETRA_DECL_REDUCE(T, N, xor)
#define SYMMETRA_DECL_REDUCE_ARITH(T, N) \
  SYMMETRA_DECL_REDUCE(T, N, max)        \
  SYMMETRA_DECL_REDUCE(T, N, min) SYMMETRA_DECL_REDUCE(T, N, sum) SYMMETRA_DECL_REDUCE(T, N, prod)
SHMEM_REDUCE_BITWISE_TYPES(SYMMETRA_DECL_REDUCE_BIT)
SHMEM_REDUCE_ARITH_TYPES(SYMMETRA_DECL_REDUCE_ARITH)
SYMMETRA_DECL_REDUCE_ARITH(long double, longdouble)
/* The complex types: C's float _Complex and double _Complex, std::complex in C++ (the same
 * layout). */
SYMMETRA_DECL_REDUCE(SYMMETRA_COMPLEXF, complexf, sum)
SYMMETRA_DECL_REDUCE(SYMMETRA_COMPLEXF, complexf, prod)
SYMMETRA_DECL_REDUCE(SYMMETRA_COMPLEXD, complexd, sum)
SYMMETRA_DECL_REDUCE(SYMMETRA_COMPLEXD, complexd, prod)
/* OpenSHMEM 1.6: prefix sums over the team, in team order (inclusive, and exclusive: the first
 * member gets zeros). The types of sum_reduce. */
#define SYMMETRA_DECL_SCAN(T, N)                                                        \
  int SYMMETRA_FN(shmem_##N##_sum_inscan)(shmem_team_t team, T * dest, const T* source, \
                                          size_t nelems);                               \
  int SYMMETRA_FN(shmem_##N##_sum_exscan)(shmem_team_t team, T * dest, const T* source, \
                                          size_t nelems);
SHMEM_REDUCE_ARITH_TYPES(SYMMETRA_DECL_SCAN)
SYMMETRA_DECL_SCAN(long double, longdouble)
SYMMETRA_DECL_SCAN(SYMMETRA_COMPLEXF, complexf)
SYMMETRA_DECL_SCAN(SYMMETRA_COMPLEXD, complexd)

/* Deprecated active-set collectives. */
void SYMMETRA_FN(shmem_broadcast32)(void* dest, const void* source, size_t nelems, int PE_root,
                                    int PE_start, int logPE_stride, int PE_size, long* pSync);
void SYMMETRA_FN(shmem_broadcast64)(void* dest, const void* source, size_t nelems, int PE_root,
                                    int PE_start, int logPE_stride, int PE_size, long* pSync);
void SYMMETRA_FN(shmem_collect32)(void* dest, const void* source, size_t nelems, int PE_start,
                                  int logPE_stride, int PE_size, long* pSync);
void SYMMETRA_FN(shmem_collect64)(void* dest, const void* source, size_t nelems, int PE_start,
                                  int logPE_stride, int PE_size, long* pSync);
void SYMMETRA_FN(shmem_fcollect32)(void* dest, const void* source, size_t nelems, int PE_start,
                                   int logPE_stride, int PE_size, long* pSync);
void SYMMETRA_FN(shmem_fcollect64)(void* dest, const void* source, size_t nelems, int PE_start,
                                   int logPE_stride, int PE_size, long* pSync);
void SYMMETRA_FN(shmem_alltoall32)(void* dest, const void* source, size_t nelems, int PE_start,
                                   int logPE_stride, int PE_size, long* pSync);
void SYMMETRA_FN(shmem_alltoall64)(void* dest, const void* source, size_t nelems, int PE_start,
                                   int logPE_stride, int PE_size, long* pSync);
void SYMMETRA_FN(shmem_alltoalls32)(void* dest, const void* source, ptrdiff_t dst, ptrdiff_t sst,
                                    size_t nelems, int PE_start, int logPE_stride, int PE_size,
                                    long* pSync);
void SYMMETRA_FN(shmem_alltoalls64)(void* dest, const void* source, ptrdiff_t dst, ptrdiff_t sst,
                                    size_t nelems, int PE_start, int logPE_stride, int PE_size,
                                    long* pSync);
#define SYMMETRA_DECL_TO_ALL(T, N, OP)                                                     \
  void SYMMETRA_FN(shmem_##N##_##OP##_to_all)(T * dest, const T* source, int nreduce,      \
                                              int PE_start, int logPE_stride, int PE_size, \
                                              T* pWrk, long* pSync);
#define SYMMETRA_DECL_TO_ALL_BIT(T, N) \
  SYMMETRA_DECL_TO_ALL(T, N, and) SYMMETRA_DECL_TO_ALL(T, N, or) SYMMETRA_DECL_TO_ALL(T, N, xor)
#define SYMMETRA_DECL_TO_ALL_ARITH(T, N) \
  SYMMETRA_DECL_TO_ALL(T, N, max)        \
  SYMMETRA_DECL_TO_ALL(T, N, min) SYMMETRA_DECL_TO_ALL(T, N, sum) SYMMETRA_DECL_TO_ALL(T, N, prod)
SHMEM_TO_ALL_BITWISE_TYPES(SYMMETRA_DECL_TO_ALL_BIT)
SHMEM_TO_ALL_ARITH_TYPES(SYMMETRA_DECL_TO_ALL_ARITH)
SYMMETRA_DECL_TO_ALL_ARITH(long double, longdouble)
SYMMETRA_DECL_TO_ALL(SYMMETRA_COMPLEXF, complexf, sum)
SYMMETRA_DECL_TO_ALL(SYMMETRA_COMPLEXF, complexf, prod)
SYMMETRA_DECL_TO_ALL(SYMMETRA_COMPLEXD, complexd, sum)
SYMMETRA_DECL_TO_ALL(SYMMETRA_COMPLEXD, complexd, prod)

/* --- Distributed locking --- */
void SYMMETRA_FN(shmem_set_lock)(long* lock);
void SYMMETRA_FN(shmem_clear_lock)(long* lock);
int SYMMETRA_FN(shmem_test_lock)(long* lock);

/* --- Cache management (deprecated no-ops: memory is coherent) --- */
void SYMMETRA_FN(shmem_clear_cache_inv)(void);
void SYMMETRA_FN(shmem_set_cache_inv)(void);
void SYMMETRA_FN(shmem_clear_cache_line_inv)(void* dest);
void SYMMETRA_FN(shmem_set_cache_line_inv)(void* dest);
void SYMMETRA_FN(shmem_udcflush)(void);
void SYMMETRA_FN(shmem_udcflush_line)(void* dest);

/* --- Profiling control (a no-op: Symmetra collects nothing itself) --- */
void SYMMETRA_FN(shmem_pcontrol)(const int level, ...);
