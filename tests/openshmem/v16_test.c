/* The OpenSHMEM 1.6 routines Symmetra has (docs/openshmem.md), each against the specification's
 * text: blocked strided put and get, the signal updates, per-PE quiet, team pointers, the sum
 * scans, sessions, shmem_query_initialized, and tests over empty sets. Data is drawn from the
 * agreed seed and every element is checked against a value computed from (seed, pe, index). */
#include <complex.h>

#include "check.h"

enum { kMaxElems = 64 };

/* (dst, sst, bsize, nblocks): equal strides, a longer source stride, a longer dest stride (the
 * gaps must stay untouched), one element, overlapping source blocks, and dense blocks. */
static const int kShapes[][4] = {{4, 4, 4, 2}, {4, 7, 4, 2}, {7, 4, 4, 2},
                                 {1, 1, 1, 1}, {9, 2, 3, 5}, {5, 5, 5, 3}};

/* Form f of ibput / ibget of longs: the typed name, the generic, the context form, the sized. */
static void ibput_form(int f, shmem_ctx_t ctx, long* d, const long* s, const int* sh, int pe) {
  switch (f) {
    case 0:
      shmem_long_ibput(d, s, sh[0], sh[1], sh[2], sh[3], pe);
      break;
    case 1:
      shmem_ibput(d, s, sh[0], sh[1], sh[2], sh[3], pe);
      break;
    case 2:
      shmem_ctx_long_ibput(ctx, d, s, sh[0], sh[1], sh[2], sh[3], pe);
      break;
    default:
      shmem_ibput64(d, s, sh[0], sh[1], sh[2], sh[3], pe);
      break;
  }
}
static void ibget_form(int f, shmem_ctx_t ctx, long* d, const long* s, const int* sh, int pe) {
  switch (f) {
    case 0:
      shmem_long_ibget(d, s, sh[0], sh[1], sh[2], sh[3], pe);
      break;
    case 1:
      shmem_ibget(ctx, d, s, sh[0], sh[1], sh[2], sh[3], pe);
      break;
    case 2:
      shmem_ctx_long_ibget(ctx, d, s, sh[0], sh[1], sh[2], sh[3], pe);
      break;
    default:
      shmem_ibget64(d, s, sh[0], sh[1], sh[2], sh[3], pe);
      break;
  }
}

/* What dest holds after a blocked transfer of `from`'s round-r data into zeros. */
static long blocked_expect(uint64_t seed, int from, int r, const int* sh, int i) {
  const int k = i / sh[0], j = i % sh[0];
  if (k >= sh[3] || j >= sh[2]) return 0;
  return (long)(val(seed, from, r, (uint64_t)(k * sh[1] + j)) >> 2);
}

static void test_blocked(uint64_t seed) {
  const int me = shmem_my_pe(), n = shmem_n_pes();
  const int next = (me + 1) % n, prev = (me + n - 1) % n;
  long* src = (long*)shmem_malloc(kMaxElems * sizeof(long));
  long* dest = (long*)shmem_malloc(kMaxElems * sizeof(long));
  long mine[kMaxElems], got[kMaxElems];
  shmem_ctx_t ctx;
  CHECK(shmem_ctx_create(0, &ctx) == 0, "shmem_ctx_create failed");
  int r = 0;
  for (size_t s = 0; s < sizeof kShapes / sizeof kShapes[0]; ++s) {
    const int* sh = kShapes[s];
    for (int f = 0; f < 4; ++f, ++r) {
      for (int i = 0; i < kMaxElems; ++i) mine[i] = (long)(val(seed, me, r, (uint64_t)i) >> 2);
      sym_write(src, mine, sizeof mine);
      sym_fill(dest, 0, kMaxElems * sizeof(long));
      shmem_barrier_all();
      ibput_form(f, ctx, dest, src, sh, next);
      shmem_ctx_quiet(ctx);
      shmem_barrier_all();
      sym_read(got, dest, sizeof got);
      for (int i = 0; i < kMaxElems; ++i)
        CHECK(got[i] == blocked_expect(seed, prev, r, sh, i),
              "ibput form %d shape (%d,%d,%d,%d): dest[%d] = %ld, want %ld", f, sh[0], sh[1], sh[2],
              sh[3], i, got[i], blocked_expect(seed, prev, r, sh, i));
      memset(got, 0, sizeof got);
      ibget_form(f, ctx, got, src, sh, next);
      for (int i = 0; i < kMaxElems; ++i)
        CHECK(got[i] == blocked_expect(seed, next, r, sh, i),
              "ibget form %d shape (%d,%d,%d,%d): dest[%d] = %ld, want %ld", f, sh[0], sh[1], sh[2],
              sh[3], i, got[i], blocked_expect(seed, next, r, sh, i));
      shmem_barrier_all();
    }
  }
  /* 16-byte elements: the sized form moves both halves of each. */
  for (int i = 0; i < kMaxElems; ++i) mine[i] = (long)(val(seed, me, r, (uint64_t)i) >> 2);
  sym_write(src, mine, sizeof mine);
  sym_fill(dest, 0, kMaxElems * sizeof(long));
  shmem_barrier_all();
  shmem_ibput128(dest, src, 5, 3, 2, 4, next); /* blocks of 4 longs, 10 apart, from 6 apart */
  shmem_barrier_all();
  sym_read(got, dest, sizeof got);
  for (int i = 0; i < kMaxElems; ++i) {
    const int k = i / 10, j = i % 10;
    const long want = k < 4 && j < 4 ? (long)(val(seed, prev, r, (uint64_t)(k * 6 + j)) >> 2) : 0;
    CHECK(got[i] == want, "ibput128: dest[%d] = %ld, want %ld", i, got[i], want);
  }
  /* Nothing to move: no block, or blocks of nothing. */
  shmem_long_ibput(dest, src, 1, 1, 0, 3, next);
  shmem_long_ibget(got, src, 1, 1, 4, 0, next);
  shmem_barrier_all();
  shmem_ctx_destroy(ctx);
  shmem_free(dest);
  shmem_free(src);
}

static void test_signals(uint64_t seed) {
  const int me = shmem_my_pe(), n = shmem_n_pes();
  const int next = (me + 1) % n, prev = (me + n - 1) % n;
  uint64_t* sig = (uint64_t*)shmem_calloc(2, sizeof(uint64_t));
  shmem_ctx_t ctx;
  CHECK(shmem_ctx_create(0, &ctx) == 0, "shmem_ctx_create failed");
  /* Every PE adds its number plus one to PE 0's first word and sets the next PE's second, which
   * held a value of its own before (a set replaces it). */
  sym_set_u64(&sig[1], val(seed, me, 99, 0));
  shmem_barrier_all();
  shmem_signal_add(&sig[0], (uint64_t)me + 1, 0);
  shmem_ctx_signal_add(ctx, &sig[0], 1000, 0);
  shmem_signal_set(&sig[1], val(seed, me, 100, 0), next);
  shmem_ctx_quiet(ctx);
  shmem_barrier_all();
  if (me == 0) {
    const uint64_t want = (uint64_t)n * (n + 1) / 2 + 1000u * (uint64_t)n;
    CHECK(shmem_signal_fetch(&sig[0]) == want, "signal_add: %llu, want %llu",
          (unsigned long long)shmem_signal_fetch(&sig[0]), (unsigned long long)want);
  }
  CHECK(shmem_signal_fetch(&sig[1]) == val(seed, prev, 100, 0), "signal_set: %llu, want %llu",
        (unsigned long long)shmem_signal_fetch(&sig[1]),
        (unsigned long long)val(seed, prev, 100, 0));
  shmem_barrier_all();
  /* A set replaces, an add after it adds: the next PE waits for the sum. */
  shmem_ctx_signal_set(ctx, &sig[0], 7, next);
  shmem_ctx_quiet(ctx);
  shmem_barrier_all();
  shmem_signal_add(&sig[0], 5, next);
  shmem_signal_wait_until(&sig[0], SHMEM_CMP_EQ, 12);
  shmem_barrier_all();
  shmem_ctx_destroy(ctx);
  shmem_free(sig);
}

/* After pe_quiet on the target, a put is complete there: a flag set after it (a separate AMO,
 * which quiet alone orders) finds the data in place. */
static void test_pe_quiet(uint64_t seed) {
  const int me = shmem_my_pe(), n = shmem_n_pes();
  const int next = (me + 1) % n, prev = (me + n - 1) % n;
  long* data = (long*)shmem_calloc(kMaxElems, sizeof(long));
  long* flag = (long*)shmem_calloc(1, sizeof(long));
  long mine[kMaxElems], got[kMaxElems];
  for (int i = 0; i < kMaxElems; ++i) mine[i] = (long)(val(seed, me, 200, (uint64_t)i) >> 2);
  shmem_barrier_all();
  shmem_long_put(data, mine, kMaxElems, next);
  const int targets[2] = {next, me};
  shmem_pe_quiet(targets, 2);
  shmem_long_atomic_set(flag, 1, next);
  shmem_long_wait_until(flag, SHMEM_CMP_EQ, 1);
  sym_read(got, data, sizeof got);
  for (int i = 0; i < kMaxElems; ++i)
    CHECK(got[i] == (long)(val(seed, prev, 200, (uint64_t)i) >> 2), "pe_quiet: data[%d] = %ld", i,
          got[i]);
  shmem_pe_quiet(NULL, 0);
  shmem_ctx_pe_quiet(SHMEM_CTX_INVALID, NULL, 0);
  shmem_ctx_pe_quiet(SHMEM_CTX_DEFAULT, targets, 1);
  shmem_barrier_all();
  shmem_free(flag);
  shmem_free(data);
}

/* The team of even world PEs (every PE on one PE). */
static shmem_team_t evens(void) {
  const int n = shmem_n_pes();
  shmem_team_t t = SHMEM_TEAM_INVALID;
  CHECK(shmem_team_split_strided(SHMEM_TEAM_WORLD, 0, n > 1 ? 2 : 1, (n + 1) / 2, NULL, 0, &t) == 0,
        "split failed");
  return t;
}

static void test_team_ptr(shmem_team_t even) {
  const int me = shmem_my_pe(), n = shmem_n_pes();
  long* x = (long*)shmem_malloc(sizeof(long));
  for (int pe = 0; pe < n; ++pe)
    CHECK(shmem_team_ptr(SHMEM_TEAM_WORLD, x, pe) == shmem_ptr(x, pe),
          "team_ptr(world, x, %d) is not shmem_ptr(x, %d)", pe, pe);
  CHECK(shmem_team_ptr(SHMEM_TEAM_WORLD, x, n) == NULL, "team_ptr of PE n");
  CHECK(shmem_team_ptr(SHMEM_TEAM_WORLD, x, -1) == NULL, "team_ptr of PE -1");
  CHECK(shmem_team_ptr(SHMEM_TEAM_INVALID, x, 0) == NULL, "team_ptr of the invalid team");
  CHECK(shmem_team_ptr(SHMEM_TEAM_WORLD, &me, 0) == NULL, "team_ptr of a private address");
  if (even != SHMEM_TEAM_INVALID) {
    const int size = shmem_team_n_pes(even), stride = n > 1 ? 2 : 1;
    for (int k = 0; k < size; ++k)
      CHECK(shmem_team_ptr(even, x, k) == shmem_ptr(x, k * stride),
            "team_ptr(evens, x, %d) is not shmem_ptr(x, %d)", k, k * stride);
    CHECK(shmem_team_ptr(even, x, size) == NULL, "team_ptr past the team");
    if (shmem_ptr(x, me) != NULL)
      CHECK(shmem_team_ptr(even, x, shmem_team_my_pe(even)) == (void*)x, "my own pointer");
  }
  shmem_barrier_all();
  shmem_free(x);
}

/* Inclusive and exclusive sums over `team` of long, double (in member order, so bit for bit)
 * and double complex, in place for one. */
static void test_scans(uint64_t seed, shmem_team_t team, int round) {
  enum { kN = 37 };
  /* The allocations are collective over every PE, members of `team` or not. */
  long* ls = (long*)shmem_malloc(kN * sizeof(long));
  long* ld = (long*)shmem_malloc(kN * sizeof(long));
  double* ds = (double*)shmem_malloc(kN * sizeof(double));
  double* dd = (double*)shmem_malloc(kN * sizeof(double));
  double _Complex* cs = (double _Complex*)shmem_malloc(kN * sizeof(double _Complex));
  const int size = shmem_team_n_pes(team), rank = shmem_team_my_pe(team);
  long lv[kN];
  double dv[kN];
  double _Complex cv[kN];
  for (int inclusive = 0; inclusive < 2 && team != SHMEM_TEAM_INVALID; ++inclusive) {
    const int r = round * 10 + inclusive;
    for (int i = 0; i < kN; ++i) {
      lv[i] = (long)(val(seed, rank, r, (uint64_t)i) % 100000) - 50000;
      dv[i] = (double)(val(seed, rank, r + 2, (uint64_t)i) % 1000003) / 7.0;
      cv[i] = (double)(i + rank) + (double)rank * I;
    }
    sym_write(ls, lv, sizeof lv);
    sym_write(ds, dv, sizeof dv);
    sym_write(cs, cv, sizeof cv);
    int rc;
    if (inclusive) {
      rc = shmem_long_sum_inscan(team, ld, ls, kN);
      rc |= shmem_sum_inscan(team, dd, ds, kN);
      rc |= shmem_complexd_sum_inscan(team, cs, cs, kN); /* in place */
    } else {
      rc = shmem_long_sum_exscan(team, ld, ls, kN);
      rc |= shmem_sum_exscan(team, dd, ds, kN);
      rc |= shmem_complexd_sum_exscan(team, cs, cs, kN);
    }
    CHECK(rc == 0, "a scan returned nonzero");
    sym_read(lv, ld, sizeof lv);
    sym_read(dv, dd, sizeof dv);
    sym_read(cv, cs, sizeof cv);
    const int upto = inclusive ? rank + 1 : rank;
    for (int i = 0; i < kN; ++i) {
      long lw = 0;
      double dw = 0;
      double _Complex cw = 0;
      for (int k = 0; k < upto; ++k) {
        lw += (long)(val(seed, k, r, (uint64_t)i) % 100000) - 50000;
        const double x = (double)(val(seed, k, r + 2, (uint64_t)i) % 1000003) / 7.0;
        dw = k == 0 ? x : dw + x;
        cw += (double)(i + k) + (double)k * I;
      }
      CHECK(lv[i] == lw, "%sscan of %d members: long [%d] = %ld, want %ld", inclusive ? "in" : "ex",
            size, i, lv[i], lw);
      CHECK(dv[i] == dw, "%sscan: double [%d] = %.17g, want %.17g", inclusive ? "in" : "ex", i,
            dv[i], dw);
      CHECK(cv[i] == cw, "%sscan: complex [%d] = %g%+gi, want %g%+gi", inclusive ? "in" : "ex", i,
            creal(cv[i]), cimag(cv[i]), creal(cw), cimag(cw));
    }
  }
  CHECK(shmem_long_sum_inscan(SHMEM_TEAM_INVALID, ld, ls, kN) != 0, "a scan over no team");
  shmem_barrier_all();
  shmem_free(cs);
  shmem_free(dd);
  shmem_free(ds);
  shmem_free(ld);
  shmem_free(ls);
}

static void test_sessions_and_empty_sets(void) {
  const int me = shmem_my_pe(), n = shmem_n_pes();
  long* words = (long*)shmem_calloc((size_t)n, sizeof(long));
  shmem_ctx_t ctx;
  CHECK(shmem_ctx_create(0, &ctx) == 0, "shmem_ctx_create failed");
  const shmem_ctx_session_config_t config = {.total_ops = (size_t)n};
  shmem_ctx_session_start(ctx, SHMEM_CTX_SESSION_BATCH, &config, SHMEM_CTX_SESSION_TOTAL_OPS);
  for (int pe = 0; pe < n; ++pe) shmem_ctx_long_atomic_add(ctx, &words[me], me + 1, pe);
  shmem_ctx_session_stop(ctx);
  shmem_ctx_quiet(ctx);
  shmem_ctx_session_start(SHMEM_CTX_DEFAULT, SHMEM_CTX_SESSION_BATCH, NULL, 0);
  shmem_ctx_session_stop(SHMEM_CTX_DEFAULT);
  shmem_ctx_session_start(SHMEM_CTX_INVALID, 0, NULL, 0);
  shmem_ctx_session_stop(SHMEM_CTX_INVALID);
  shmem_barrier_all();
  for (int pe = 0; pe < n; ++pe)
    CHECK(shmem_long_atomic_fetch(&words[pe], me) == pe + 1, "session: word %d", pe);
  /* "All of none" holds; "any of none" and "some of none" find nothing. */
  CHECK(shmem_long_test_all(words, 0, NULL, SHMEM_CMP_EQ, 12345) == 1, "test_all of none");
  CHECK(shmem_long_test_any(words, 0, NULL, SHMEM_CMP_EQ, 12345) == SIZE_MAX, "test_any of none");
  size_t idx[1];
  CHECK(shmem_long_test_some(words, 0, idx, NULL, SHMEM_CMP_EQ, 12345) == 0, "test_some of none");
  shmem_barrier_all();
  shmem_ctx_destroy(ctx);
  shmem_free(words);
}

int main(void) {
  int init = -1;
  shmem_query_initialized(&init);
  if (init != 0) {
    fprintf(stderr, "shmem_query_initialized before shmem_init: %d, want 0\n", init);
    return 1;
  }
  shmem_init();
  shmem_query_initialized(&init);
  CHECK(init != 0, "shmem_query_initialized after shmem_init: 0");
  const uint64_t seed = agreed_seed();
  test_blocked(seed);
  test_signals(seed);
  test_pe_quiet(seed);
  const shmem_team_t even = evens();
  test_team_ptr(even);
  test_scans(seed, SHMEM_TEAM_WORLD, 1);
  test_scans(seed, even, 2);
  test_sessions_and_empty_sets();
  if (even != SHMEM_TEAM_INVALID) shmem_team_destroy(even);
  const int me = shmem_my_pe();
  shmem_finalize();
  shmem_query_initialized(&init);
  if (init != 0) {
    fprintf(stderr, "shmem_query_initialized after shmem_finalize: %d, want 0\n", init);
    return 1;
  }
  /* shmem_init again after shmem_finalize: the same PEs, a new job. Twice more, each with a put
   * around the ring and a fresh allocation. */
  for (int round = 1; round <= 2; ++round) {
    shmem_init();
    shmem_query_initialized(&init);
    CHECK(init != 0, "shmem_query_initialized after shmem_init again: 0");
    const int pe = shmem_my_pe(), n = shmem_n_pes();
    CHECK(pe == me, "my_pe %d after shmem_init again, was %d", pe, me);
    long* ring = (long*)shmem_malloc(sizeof(long));
    shmem_long_p(ring, (long)(round * 1000 + pe), (pe + 1) % n);
    shmem_barrier_all();
    CHECK(sym_long(ring) == round * 1000 + (pe + n - 1) % n, "round %d: got %ld", round,
          sym_long(ring));
    shmem_free(ring);
    shmem_finalize();
  }
  if (me == 0) printf("PASS\n");
  return 0;
}
