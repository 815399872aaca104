/* Helpers of the OpenSHMEM C API tests (C, built with symcc, run with symrun).
 * Every test draws its data from a seed all PEs agree on (SYMMETRA_TEST_SEED replays one), and
 * checks every element against a value computed independently from (seed, pe, index). */
#ifndef SYMMETRA_CONFORMANCE_CHECK_H
#define SYMMETRA_CONFORMANCE_CHECK_H

#include <shmem.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

/* Symmetric memory may be device memory (SYMMETRA_BACKEND=cuda, as under NVSHMEM's host API):
 * the tests read and write their own PE's copy through the API, never by dereference, so that one
 * source runs on both backends. */
static inline void sym_read(void* dst, const void* sym, size_t bytes) {
  shmem_getmem(dst, sym, bytes, shmem_my_pe());
}
static inline void sym_write(void* sym, const void* src, size_t bytes) {
  shmem_putmem(sym, src, bytes, shmem_my_pe());
  shmem_quiet();
}
/* A private copy of `bytes` bytes of this PE's symmetric memory, freed by the caller. */
static inline void* sym_copy(const void* sym, size_t bytes) {
  void* p = malloc(bytes ? bytes : 1);
  sym_read(p, sym, bytes);
  return p;
}
/* Fills this PE's symmetric bytes with `byte`. */
static inline void sym_fill(void* sym, int byte, size_t bytes) {
  void* p = malloc(bytes ? bytes : 1);
  memset(p, byte, bytes);
  sym_write(sym, p, bytes);
  free(p);
}
/* One element of this PE's symmetric array. */
#define SYM_DEFINE_LOAD(T, N)                 \
  static inline T sym_##N(const T* p) {       \
    T v;                                      \
    sym_read(&v, p, sizeof(T));               \
    return v;                                 \
  }                                           \
  static inline void sym_set_##N(T* p, T v) { \
    sym_write(p, &v, sizeof(T));              \
  }
SYM_DEFINE_LOAD(int, int)
SYM_DEFINE_LOAD(long, long)
SYM_DEFINE_LOAD(float, float)
SYM_DEFINE_LOAD(double, double)
SYM_DEFINE_LOAD(uint32_t, u32)
SYM_DEFINE_LOAD(uint64_t, u64)
SYM_DEFINE_LOAD(int64_t, i64)

/* Whether the job runs on the GPU backend (symmetric memory on the device). */
static inline int on_gpu(void) {
  const char* b = getenv("SYMMETRA_BACKEND");
  return b != NULL && (strcmp(b, "cuda") == 0 || strcmp(b, "gpu") == 0);
}

/* Reports a failed check with the PE and the place, and ends the job with status 1. */
#define CHECK(cond, ...)                                                                      \
  do {                                                                                        \
    if (!(cond)) {                                                                            \
      fprintf(stderr, "[pe %d] %s:%d: check failed: %s: ", shmem_my_pe(), __FILE__, __LINE__, \
              #cond);                                                                         \
      fprintf(stderr, __VA_ARGS__);                                                           \
      fprintf(stderr, "\n");                                                                  \
      fflush(stderr);                                                                         \
      shmem_global_exit(1);                                                                   \
    }                                                                                         \
  } while (0)

static inline uint64_t mix64(uint64_t x) {
  x ^= x >> 31;
  x *= 0x9e3779b97f4a7c15ull;
  x ^= x >> 29;
  x *= 0xbf58476d1ce4e5b9ull;
  x ^= x >> 32;
  return x;
}

/* Value i of PE pe's data in round r: never zero. */
static inline uint64_t val(uint64_t seed, int pe, int r, uint64_t i) {
  return mix64(seed ^ ((uint64_t)pe << 48) ^ ((uint64_t)r << 32) ^ i) | 1;
}

/* A seed every PE agrees on: PE 0's, from SYMMETRA_TEST_SEED or the clock, printed once. */
static inline uint64_t agreed_seed(void) {
  uint64_t* s = (uint64_t*)shmem_malloc(sizeof(uint64_t));
  if (shmem_my_pe() == 0) {
    const char* env = getenv("SYMMETRA_TEST_SEED");
    uint64_t v =
        env ? strtoull(env, NULL, 10) : (uint64_t)time(NULL) * 2654435761u + (uint64_t)clock();
    printf("test seed %llu (SYMMETRA_TEST_SEED=%llu replays it)\n", (unsigned long long)v,
           (unsigned long long)v);
    fflush(stdout);
    for (int pe = 0; pe < shmem_n_pes(); ++pe) shmem_uint64_p(s, v, pe);
  }
  shmem_barrier_all();
  uint64_t v = sym_u64(s);
  shmem_barrier_all();
  shmem_free(s);
  return v;
}

#endif
