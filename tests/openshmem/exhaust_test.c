/* Exhausting the symmetric heap (OpenSHMEM 1.5 section 9.3): shmem_malloc, shmem_calloc,
 * shmem_align and shmem_realloc return a null pointer on every PE when the space cannot be
 * allocated, after the collective, and the job goes on: the heap still serves later requests, and
 * a failed shmem_realloc leaves its block as it was. */
#include "check.h"

int main(void) {
  shmem_init();
  const int me = shmem_my_pe(), n = shmem_n_pes();
  const uint64_t seed = agreed_seed();
  const size_t huge = (size_t)1 << 40; /* 1 TiB: more than any heap here may grow to */
  CHECK(shmem_malloc(huge) == NULL, "malloc(1 TiB) did not return NULL");
  CHECK(shmem_calloc((size_t)1 << 20, (size_t)1 << 20) == NULL,
        "calloc(2^20, 2^20) did not return NULL");
  CHECK(shmem_calloc(SIZE_MAX / 2, 4) == NULL, "calloc whose size overflows did not return NULL");
  CHECK(shmem_align(4096, huge) == NULL, "align(4096, 1 TiB) did not return NULL");
  uint64_t* p = (uint64_t*)shmem_malloc(1000 * sizeof(uint64_t));
  CHECK(p != NULL, "malloc after the failures");
  uint64_t lp[1000];
  for (int i = 0; i < 1000; ++i) lp[i] = val(seed, me, 0, (uint64_t)i);
  sym_write(p, lp, sizeof(lp));
  CHECK(shmem_realloc(p, huge) == NULL, "realloc to 1 TiB did not return NULL");
  sym_read(lp, p, sizeof(lp));
  for (int i = 0; i < 1000; ++i)
    CHECK(lp[i] == val(seed, me, 0, (uint64_t)i), "realloc's failure changed element %d", i);
  /* The block is still symmetric and whole: every PE reads its neighbour's. */
  shmem_barrier_all();
  const int next = (me + 1) % n;
  uint64_t got[1000];
  shmem_uint64_get(got, p, 1000, next);
  for (int i = 0; i < 1000; ++i)
    CHECK(got[i] == val(seed, next, 0, (uint64_t)i), "element %d of PE %d", i, next);
  shmem_barrier_all();
  shmem_free(p);
  void* q = shmem_malloc(1 << 20);
  CHECK(q != NULL, "malloc of 1 MiB after the failures");
  shmem_free(q);
  if (me == 0) printf("PASS exhaust %d PEs\n", n);
  shmem_finalize();
  return 0;
}
