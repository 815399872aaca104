/* What the NVSHMEM test programs share (C and CUDA): CHECK, which counts and names a failure,
 * and a fresh seed from PE 0's clock and process id, the same on every PE. */
#ifndef SYMMETRA_TESTS_NVSHMEM_TEST_UTIL_H
#define SYMMETRA_TESTS_NVSHMEM_TEST_UTIL_H

#include <nvshmem.h>
#include <stdio.h>
#include <time.h>
#include <unistd.h>

static int failures = 0;
#define CHECK(cond, ...)                                  \
  do {                                                    \
    if (!(cond)) {                                        \
      fprintf(stderr, "[pe %d] FAIL: ", nvshmem_my_pe()); \
      fprintf(stderr, __VA_ARGS__);                       \
      fprintf(stderr, "\n");                              \
      ++failures;                                         \
    }                                                     \
  } while (0)

/* Collective: PE 0 puts its seed into every PE's word of the heap. */
static inline unsigned long long shared_seed(void) {
  unsigned long long* word = (unsigned long long*)nvshmem_calloc(1, sizeof(*word));
  if (nvshmem_my_pe() == 0) {
    const unsigned long long v =
        (unsigned long long)time(NULL) ^ ((unsigned long long)getpid() << 24);
    for (int pe = 0; pe < nvshmem_n_pes(); ++pe) nvshmem_ulonglong_p(word, v, pe);
  }
  nvshmem_barrier_all();
  const unsigned long long s = nvshmem_ulonglong_g(word, nvshmem_my_pe());
  nvshmem_barrier_all(); /* every PE has read before the word goes */
  nvshmem_free(word);
  return s;
}

#endif
