/* Point-to-point synchronization, signals, ordering and locks (OpenSHMEM 1.5 sections 9.8-9.11):
 * a put_signal ring, wait_until families on words other PEs set, fence ordering, and a counter
 * kept with plain get/put under shmem_set_lock. */
#include "check.h"

#define W 513

int main(void) {
  shmem_init();
  const int me = shmem_my_pe(), n = shmem_n_pes();
  const int next = (me + 1) % n, prev = (me + n - 1) % n;
  const uint64_t seed = agreed_seed();
  uint64_t* buf = (uint64_t*)shmem_malloc(W * sizeof(uint64_t));
  uint64_t* sig = (uint64_t*)shmem_calloc(1, sizeof(uint64_t));
  int* flags = (int*)shmem_calloc((size_t)n, sizeof(int));
  long* lock = (long*)shmem_calloc(1, sizeof(long));
  long* counter = (long*)shmem_calloc(1, sizeof(long));
  long* ordered = (long*)shmem_calloc(2, sizeof(long));
  uint64_t src[W];
  shmem_barrier_all();

  /* 1. put_signal around the ring, 20 rounds, signal counts up */
  for (uint64_t r = 1; r <= 20; ++r) {
    for (int i = 0; i < W; ++i) src[i] = val(seed, me, (int)r, (uint64_t)i);
    if (r % 2)
      shmem_uint64_put_signal(buf, src, W, sig, r, SHMEM_SIGNAL_SET, next);
    else
      shmem_put_signal_nbi(buf, src, W, sig, 1, SHMEM_SIGNAL_ADD, next); /* generic, add */
    CHECK(shmem_signal_wait_until(sig, SHMEM_CMP_GE, r) >= r, "signal_wait_until");
    uint64_t got[W];
    sym_read(got, buf, sizeof(got));
    for (int i = 0; i < W; ++i)
      CHECK(got[i] == val(seed, prev, (int)r, (uint64_t)i), "round %llu element %d",
            (unsigned long long)r, i);
    CHECK(shmem_signal_fetch(sig) == r, "signal_fetch %llu",
          (unsigned long long)shmem_signal_fetch(sig));
    shmem_barrier_all(); /* nobody overwrites buf before its owner checked it */
  }

  /* 2. wait_until families: every PE sets its flag on every PE, in a PE-dependent order */
  for (int k = 0; k < n; ++k) shmem_int_p(&flags[me], me + 1, (me + k) % n);
  shmem_int_wait_until_all(flags, (size_t)n, NULL, SHMEM_CMP_NE, 0);
  int* vf = (int*)sym_copy(flags, (size_t)n * sizeof(int));
  for (int pe = 0; pe < n; ++pe) CHECK(vf[pe] == pe + 1, "flag of PE %d is %d", pe, vf[pe]);
  free(vf);
  const size_t any = shmem_int_wait_until_any(flags, (size_t)n, NULL, SHMEM_CMP_GT, 0);
  CHECK(any < (size_t)n, "wait_until_any gave %zu", any);
  size_t idx[64];
  const size_t some = shmem_int_wait_until_some(flags, (size_t)n, idx, NULL, SHMEM_CMP_GE, 1);
  CHECK(some == (size_t)n, "wait_until_some found %zu of %d", some, n);
  int status[64] = {0};
  status[0] = 1; /* skip index 0 */
  CHECK(shmem_int_test_any(flags, (size_t)n, status, SHMEM_CMP_EQ, 1) == SIZE_MAX,
        "test_any saw the skipped flag");
  CHECK(shmem_int_test_all(flags, (size_t)n, NULL, SHMEM_CMP_GT, 0) == 1, "test_all");
  int want[64];
  for (int pe = 0; pe < n; ++pe) want[pe] = pe + 1;
  shmem_int_wait_until_all_vector(flags, (size_t)n, NULL, SHMEM_CMP_EQ, want);
  CHECK(shmem_test(&flags[me], SHMEM_CMP_EQ, me + 1), "generic test");
  shmem_wait_until(&flags[me], SHMEM_CMP_EQ, me + 1); /* generic, already true */
  shmem_barrier_all();

  /* 3. fence: the data put before the fence is there when the flag after it is seen */
  const long token = (long)(val(seed, me, 30, 0) >> 2);
  shmem_long_p(&ordered[0], token, next);
  shmem_fence();
  shmem_long_p(&ordered[1], 1, next);
  shmem_long_wait_until(&ordered[1], SHMEM_CMP_EQ, 1);
  CHECK(sym_long(&ordered[0]) == (long)(val(seed, prev, 30, 0) >> 2), "data after fence");
  shmem_barrier_all();

  /* 4. a lock around a non-atomic read-modify-write of PE 0's counter */
  for (int i = 0; i < 50; ++i) {
    shmem_set_lock(lock);
    const long c = shmem_long_g(counter, 0);
    shmem_long_p(counter, c + 1, 0);
    shmem_quiet();
    shmem_clear_lock(lock);
  }
  shmem_barrier_all();
  if (me == 0)
    CHECK(sym_long(counter) == 50L * n, "counter %ld under the lock, want %ld", sym_long(counter),
          50L * n);
  if (me == 0) {
    CHECK(shmem_test_lock(lock) == 0, "test_lock on a free lock");
    CHECK(shmem_test_lock(lock) == 1, "test_lock on a held lock");
    shmem_clear_lock(lock);
  }
  shmem_barrier_all();

  /* 5. sync_all and team_sync */
  shmem_sync_all();
  CHECK(shmem_team_sync(SHMEM_TEAM_WORLD) == 0, "team_sync");
  shmem_free(ordered);
  shmem_free(counter);
  shmem_free(lock);
  shmem_free(flags);
  shmem_free(sig);
  shmem_free(buf);
  if (me == 0) printf("PASS sync %d PEs\n", n);
  shmem_finalize();
  return 0;
}
