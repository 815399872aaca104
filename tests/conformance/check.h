/* Helpers of the OpenSHMEM conformance tests (C, built with symcc, run with symrun).
 * Every test draws its data from a seed all PEs agree on (SYMMETRA_TEST_SEED replays one), and
 * checks every element against a value computed independently from (seed, pe, index). */
#ifndef SYMMETRA_CONFORMANCE_CHECK_H
#define SYMMETRA_CONFORMANCE_CHECK_H

#include <shmem.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>


/* Reports a failed check with the PE and the place, and ends the job with status 1. */
#define CHECK(cond, ...)                                                        \
  do {                                                                          \
    if (!(cond)) {                                                              \
      fprintf(stderr, "[pe %d] %s:%d: check failed: %s: ", shmem_my_pe(), __FILE__, __LINE__, #cond); \
      fprintf(stderr, __VA_ARGS__);                                             \
      fprintf(stderr, "\n");                                                    \
      fflush(stderr);                                                           \
      shmem_global_exit(1);                                                     \
    }                                                                           \
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
    uint64_t v = env ? strtoull(env, NULL, 10) : (uint64_t)time(NULL) * 2654435761u + (uint64_t)clock();
    printf("test seed %llu (SYMMETRA_TEST_SEED=%llu replays it)\n", (unsigned long long)v, (unsigned long long)v);
    fflush(stdout);
    for (int pe = 0; pe < shmem_n_pes(); ++pe) shmem_uint64_p(s, v, pe);
  }
  shmem_barrier_all();
  uint64_t v = *s;
  shmem_barrier_all();
  shmem_free(s);
  return v;
}

#endif
