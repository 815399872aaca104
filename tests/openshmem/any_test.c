/* Fairness of the _any forms (OpenSHMEM 1.5 section 9.10.3-9.10.4): the standard's own pattern,
 * a loop that calls shmem_test_any (status NULL or all zeros) until every index that satisfies
 * the test has come back once, must end. Each scan must start after the index it returned last;
 * scanning from 0 every time returns index 0 forever. Also wait_until_any and the _vector forms,
 * on words that other PEs set. Every loop is bounded, so an unfair scan fails instead of hanging.
 */
#include "check.h"

#define ROUNDS 100000

int main(void) {
  shmem_init();
  const int me = shmem_my_pe(), n = shmem_n_pes();
  const int k = 3 * n + 1; /* more flags than PEs: several per sender */
  int* flags = (int*)shmem_calloc((size_t)k, sizeof(int));
  int status[64] = {0};
  int processed[64];
  int cmp_values[64];
  shmem_barrier_all();
  /* Every flag is set by some PE (flag i by PE i % n), so all of them satisfy the test. */
  for (int i = 0; i < k; ++i)
    if (i % n == me)
      for (int pe = 0; pe < n; ++pe) shmem_int_p(&flags[i], i + 1, pe);
  shmem_barrier_all();

  for (int form = 0; form < 4; ++form) {
    for (int i = 0; i < k; ++i) processed[i] = 0, cmp_values[i] = i + 1;
    int done = 0, rounds = 0;
    for (; done < k && rounds < ROUNDS; ++rounds) {
      size_t idx = SIZE_MAX;
      switch (form) {
        case 0:
          idx = shmem_int_test_any(flags, (size_t)k, NULL, SHMEM_CMP_NE, 0);
          break;
        case 1:
          idx = shmem_test_any(flags, (size_t)k, status, SHMEM_CMP_GT, 0);
          break;
        case 2:
          idx = shmem_int_wait_until_any(flags, (size_t)k, NULL, SHMEM_CMP_NE, 0);
          break;
        case 3:
          idx = shmem_int_test_any_vector(flags, (size_t)k, NULL, SHMEM_CMP_EQ, cmp_values);
          break;
      }
      CHECK(idx < (size_t)k, "form %d returned %zu of %d flags, all set", form, idx, k);
      if (!processed[idx]) processed[idx] = 1, ++done;
    }
    CHECK(done == k,
          "form %d: %d of %d satisfied flags came back in %d calls: the scan is not fair", form,
          done, k, rounds);
    /* Fair means round robin: k calls return k distinct indices. */
    CHECK(rounds == k, "form %d took %d calls for %d flags", form, rounds, k);
  }
  /* wait_until_any_vector on its own: the same loop. */
  for (int i = 0; i < k; ++i) processed[i] = 0;
  int done = 0;
  for (int r = 0; r < ROUNDS && done < k; ++r) {
    const size_t idx =
        shmem_int_wait_until_any_vector(flags, (size_t)k, status, SHMEM_CMP_EQ, cmp_values);
    CHECK(idx < (size_t)k, "wait_until_any_vector returned %zu", idx);
    if (!processed[idx]) processed[idx] = 1, ++done;
  }
  CHECK(done == k, "wait_until_any_vector: %d of %d flags came back", done, k);
  /* Excluded indices never come back, and the scan still reaches every included one. */
  for (int i = 0; i < k; ++i) status[i] = i % 2, processed[i] = 0;
  done = 0;
  for (int r = 0; r < 2 * k; ++r) {
    const size_t idx = shmem_int_test_any(flags, (size_t)k, status, SHMEM_CMP_NE, 0);
    CHECK(idx < (size_t)k && status[idx] == 0, "test_any returned excluded index %zu", idx);
    if (!processed[idx]) processed[idx] = 1, ++done;
  }
  CHECK(done == (k + 1) / 2, "%d of %d included flags came back", done, (k + 1) / 2);
  shmem_barrier_all();
  shmem_free(flags);
  if (me == 0) printf("PASS any %d PEs\n", n);
  shmem_finalize();
  return 0;
}
