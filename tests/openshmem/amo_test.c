/* Atomic memory operations (OpenSHMEM 1.5 section 9.7): contended adds and increments with exact
 * totals, unique compare-and-swap tickets, swap/set/fetch on integers and floating point, the
 * bitwise family, the nbi fetch forms, the deprecated 1.3 names and the generic names. */
#include <shmemx.h>

#include "check.h"

#define ITERS 200

int main(void) {
  shmem_init();
  const int me = shmem_my_pe(), n = shmem_n_pes();
  const uint64_t seed = agreed_seed();
  long* counters = (long*)shmem_calloc(4, sizeof(long));
  unsigned long long* bits = (unsigned long long*)shmem_malloc(3 * sizeof(unsigned long long));
  int* tickets = (int*)shmem_calloc(1, sizeof(int));
  int* claimed = (int*)shmem_calloc((size_t)n * ITERS, sizeof(int));
  double* dv = (double*)shmem_malloc(sizeof(double));
  float* fv = (float*)shmem_malloc(sizeof(float));
  const unsigned long long init_and = ~0ull, init_or = 0, init_xor = val(seed, 0, 1, 0);
  const unsigned long long init[3] = {init_and, init_or, init_xor};
  sym_write(bits, init, sizeof(init));
  shmem_barrier_all();

  const long add = (long)(val(seed, me, 2, 0) % 1000);
  for (int i = 0; i < ITERS; ++i) {
    const int pe = i % n;
    shmem_long_atomic_add(&counters[0], add, pe);
    (void)shmem_long_atomic_fetch_inc(&counters[1], pe);
    shmem_atomic_inc(&counters[2], pe); /* generic */
    long f = 0;
    shmem_long_atomic_fetch_add_nbi(&f, &counters[3], 1, pe);
    shmem_quiet();
    CHECK(f >= 0, "fetch_add_nbi fetched %ld", f);
    /* a ticket from PE 0 by compare-and-swap */
    int t = shmem_int_atomic_fetch(tickets, 0);
    for (;;) {
      const int got = shmem_int_atomic_compare_swap(tickets, t, t + 1, 0);
      if (got == t) break;
      t = got;
    }
    CHECK(t >= 0 && t < n * ITERS, "ticket %d out of range", t);
    shmem_int_atomic_set(&claimed[t], me + 1, 0);
  }
  /* bitwise: each PE clears its own bit in AND, sets it in OR, flips a pattern in XOR, on PE 0 */
  const unsigned long long mine = 1ull << (me % 64);
  shmem_ulonglong_atomic_and(&bits[0], ~mine, 0);
  (void)shmem_ulonglong_atomic_fetch_or(&bits[1], mine, 0);
  shmem_atomic_xor(&bits[2], val(seed, me, 3, 0), 0); /* generic */
  shmem_barrier_all();

  long sum_add = 0;
  for (int pe = 0; pe < n; ++pe) {
    const long a = (long)(val(seed, pe, 2, 0) % 1000);
    const long visits = ITERS / n + (me < ITERS % n ? 1 : 0); /* PE pe's visits to me */
    sum_add += a * visits;
  }
  const long visits_all = (long)n * (ITERS / n + (me < ITERS % n ? 1 : 0));
  long c[4];
  sym_read(c, counters, sizeof(c));
  CHECK(c[0] == sum_add, "atomic_add total %ld, want %ld", c[0], sum_add);
  CHECK(c[1] == visits_all && c[2] == visits_all && c[3] == visits_all,
        "increments %ld %ld %ld, want %ld", c[1], c[2], c[3], visits_all);
  if (me == 0) {
    CHECK(sym_int(tickets) == n * ITERS, "tickets %d", sym_int(tickets));
    int* vc = (int*)sym_copy(claimed, (size_t)n * ITERS * sizeof(int));
    for (int t = 0; t < n * ITERS; ++t)
      CHECK(vc[t] != 0, "ticket %d never claimed (a duplicate elsewhere)", t);
    free(vc);
    unsigned long long b[3];
    sym_read(b, bits, sizeof(b));
    unsigned long long all = 0, x = init_xor;
    for (int pe = 0; pe < n; ++pe) {
      all |= 1ull << (pe % 64);
      x ^= val(seed, pe, 3, 0);
    }
    CHECK(b[0] == ~all && b[1] == all && b[2] == x, "bitwise %llx %llx %llx", b[0], b[1], b[2]);
  }
  shmem_barrier_all();

  /* swap / set / fetch, floating point too; each PE on its own words */
  const double d0 = (double)(val(seed, me, 4, 0) >> 12);
  shmem_double_atomic_set(dv, d0, me);
  CHECK(shmem_double_atomic_swap(dv, d0 * 2, me) == d0, "double swap");
  CHECK(shmem_atomic_fetch(dv, me) == d0 * 2, "double fetch (generic)");
  shmem_float_set(fv, 1.25f, me);
  CHECK(shmem_float_atomic_fetch(fv, me) == 1.25f, "float set/fetch");
  float fold = 0;
  shmem_float_atomic_swap_nbi(&fold, fv, 2.5f, me);
  shmem_quiet();
  CHECK(fold == 1.25f && sym_float(fv) == 2.5f, "float swap_nbi");
  /* shmemx.h's floating-point add: every PE adds halves (float) and quarters (double), exact
   * in either type whatever the order, to PE 0's words; fetch_add's old values grow */
  shmem_barrier_all();
  float fsum_last = -1;
  double dsum_last = -1;
  if (me == 0) {
    shmem_float_atomic_set(fv, 0, 0);
    shmem_double_atomic_set(dv, 0, 0);
  }
  shmem_barrier_all();
  for (int i = 0; i < ITERS; ++i) {
    if (i % 2) {
      shmemx_float_atomic_add(fv, 0.5f * (float)(me + 1), 0);
      shmemx_ctx_double_atomic_add(SHMEM_CTX_DEFAULT, dv, 0.25 * (me + 1), 0);
    } else {
      const float fo =
          shmemx_ctx_float_atomic_fetch_add(SHMEM_CTX_DEFAULT, fv, 0.5f * (float)(me + 1), 0);
      const double dold = shmemx_double_atomic_fetch_add(dv, 0.25 * (me + 1), 0);
      CHECK(fo > fsum_last && dold > dsum_last, "fetch_add went back: %g after %g", fo, fsum_last);
      fsum_last = fo, dsum_last = dold;
    }
  }
  shmem_barrier_all();
  const double ranks = (double)n * (n + 1) / 2;
  CHECK(shmem_float_atomic_fetch(fv, 0) == (float)(ITERS * 0.5 * ranks) &&
            shmem_double_atomic_fetch(dv, 0) == ITERS * 0.25 * ranks,
        "float add total %g, double %g; want %g and %g", shmem_float_atomic_fetch(fv, 0),
        shmem_double_atomic_fetch(dv, 0), ITERS * 0.5 * ranks, ITERS * 0.25 * ranks);
  /* deprecated 1.3 names on a word of my own */
  long* w = &counters[0];
  shmem_barrier_all();
  const long before = shmem_long_fetch(w, me);
  CHECK(shmem_long_fadd(w, 5, me) == before, "fadd");
  CHECK(shmem_long_finc(w, me) == before + 5, "finc");
  shmem_long_add(w, 2, me);
  shmem_long_inc(w, me);
  CHECK(shmem_long_cswap(w, before + 9, 42, me) == before + 9, "cswap");
  CHECK(shmem_long_swap(w, 7, me) == 42, "swap");
  shmem_long_set(w, 8, me);
  CHECK(sym_long(w) == 8, "set");
  shmem_barrier_all();
  shmem_free(fv);
  shmem_free(dv);
  shmem_free(claimed);
  shmem_free(tickets);
  shmem_free(bits);
  shmem_free(counters);
  if (me == 0) printf("PASS amo %d PEs\n", n);
  shmem_finalize();
  return 0;
}
