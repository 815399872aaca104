/* shmem_align (OpenSHMEM 1.5 section 9.3.2): the block's address is a multiple of the alignment
 * on every PE, for every power of two from 16 bytes to 64 MiB (past the page size, past the
 * 2 MiB of a huge page), and the block is symmetric: what a PE puts at it on the next PE is there.
 * Blocks of each alignment are kept live together, so later ones must find aligned room between
 * earlier ones. */
#include "check.h"

int main(void) {
  shmem_init();
  const int me = shmem_my_pe(), n = shmem_n_pes();
  const int next = (me + 1) % n, prev = (me + n - 1) % n;
  const uint64_t seed = agreed_seed();
  enum { kMaxLog = 26 };
  uint64_t* blocks[kMaxLog + 1] = {0};
  for (int lg = 4; lg <= kMaxLog; ++lg) {
    const size_t al = (size_t)1 << lg;
    uint64_t* p = (uint64_t*)shmem_align(al, 24 + (size_t)lg * 8);
    CHECK(p != NULL, "shmem_align(%zu) returned NULL", al);
    CHECK((uintptr_t)p % al == 0, "shmem_align(%zu) gave %p, %zu bytes past a multiple", al,
          (void*)p, (size_t)((uintptr_t)p % al));
    CHECK(shmem_addr_accessible(p, next), "block of alignment %zu not accessible on PE %d", al,
          next);
    blocks[lg] = p;
    /* A small malloc between, so the next aligned block cannot simply follow. */
    shmem_free(shmem_malloc(24));
  }
  for (int lg = 4; lg <= kMaxLog; ++lg) shmem_uint64_p(blocks[lg], val(seed, me, lg, 0), next);
  shmem_barrier_all();
  for (int lg = 4; lg <= kMaxLog; ++lg)
    CHECK(sym_u64(blocks[lg]) == val(seed, prev, lg, 0),
          "block of alignment 2^%d: PE %d's put is not there", lg, prev);
  shmem_barrier_all();
  for (int lg = kMaxLog; lg >= 4; --lg) shmem_free(blocks[lg]);
  if (me == 0) printf("PASS align %d PEs\n", n);
  shmem_finalize();
  return 0;
}
