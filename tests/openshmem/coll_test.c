/* Collectives and teams (OpenSHMEM 1.5 sections 9.4, 9.9): the team forms on the world team and
 * on a strided team, contexts on a team, split_2d, and the deprecated active-set forms; every
 * element against a reference computed from (seed, pe, index). Own symmetric memory is read and
 * written through the API (check.h): the test runs with the heap in device memory too. */
#include <complex.h>
#include <string.h>

#include "check.h"

#define M 97

/* Long values with headroom: a sum over a few PEs must not overflow (signed overflow is UB). */
static long lv(uint64_t seed, int pe, int r, uint64_t i) {
  return (long)(val(seed, pe, r, i) >> 4);
}

struct bufs {
  long *src, *dst;
  double *fs, *fd;
  int *is, *id;
  long double *ls, *ld;
  double _Complex *cs, *cd;
};

/* Buffers for a team of up to n members: shmem_malloc is collective over the world team, so
 * every PE allocates them before any team works on them. */
static struct bufs alloc_bufs(int n) {
  struct bufs b;
  b.src = (long*)shmem_malloc((size_t)M * (size_t)n * sizeof(long));
  b.dst = (long*)shmem_malloc((size_t)M * (size_t)n * sizeof(long));
  b.fs = (double*)shmem_malloc(M * sizeof(double));
  b.fd = (double*)shmem_malloc(M * sizeof(double));
  b.is = (int*)shmem_malloc(M * sizeof(int));
  b.id = (int*)shmem_malloc(M * sizeof(int));
  b.ls = (long double*)shmem_malloc(M * sizeof(long double));
  b.ld = (long double*)shmem_malloc(M * sizeof(long double));
  b.cs = (double _Complex*)shmem_malloc(M * sizeof(double _Complex));
  b.cd = (double _Complex*)shmem_malloc(M * sizeof(double _Complex));
  return b;
}

static void team_check(shmem_team_t t, uint64_t seed, int round, struct bufs b) {
  const int tn = shmem_team_n_pes(t), tme = shmem_team_my_pe(t);
  const size_t nl = (size_t)M * (size_t)tn;
  /* Local views of the symmetric buffers (check.h: they may be device memory). */
  long* src = (long*)malloc(nl * sizeof(long));
  long* dst = (long*)malloc(nl * sizeof(long));
  double fs[M], fd[M];
  int is[M], id[M];
  for (size_t i = 0; i < nl; ++i) src[i] = lv(seed, tme, round, (uint64_t)i);
  for (int i = 0; i < M; ++i) {
    fs[i] = (double)(val(seed, tme, round + 1, (uint64_t)i) % 1000) / 8.0; /* exact sums */
    is[i] = (int)(val(seed, tme, round + 2, (uint64_t)i) % 100000);
  }
  sym_write(b.src, src, nl * sizeof(long));
  sym_write(b.fs, fs, sizeof(fs));
  sym_write(b.is, is, sizeof(is));
  shmem_team_sync(t);
  const int root = (int)(seed % (uint64_t)tn);
  CHECK(shmem_long_broadcast(t, b.dst, b.src, M, root) == 0, "broadcast");
  sym_read(dst, b.dst, M * sizeof(long));
  for (int i = 0; i < M; ++i)
    CHECK(dst[i] == lv(seed, root, round, (uint64_t)i), "broadcast %d", i);
  CHECK(shmem_fcollect(t, b.dst, b.src, M) == 0, "fcollect");
  sym_read(dst, b.dst, nl * sizeof(long));
  for (size_t i = 0; i < nl; ++i)
    CHECK(dst[i] == lv(seed, (int)(i / M), round, i % M), "fcollect %zu", i);
  /* collect: member r contributes r + 1 elements */
  CHECK(shmem_long_collect(t, b.dst, b.src, (size_t)tme + 1) == 0, "collect");
  sym_read(dst, b.dst, nl * sizeof(long));
  for (int r = 0, at = 0; r < tn; at += r + 1, ++r)
    for (int i = 0; i <= r; ++i)
      CHECK(dst[at + i] == lv(seed, r, round, (uint64_t)i), "collect block %d elem %d", r, i);
  shmem_team_sync(
      t); /* dest was just read: the standard asks the program to ready it for alltoall */
  CHECK(shmem_long_alltoall(t, b.dst, b.src, M) == 0, "alltoall");
  sym_read(dst, b.dst, nl * sizeof(long));
  for (size_t i = 0; i < nl; ++i)
    CHECK(dst[i] == lv(seed, (int)(i / M), round, (uint64_t)tme * M + i % M), "alltoall %zu", i);
  sym_fill(b.dst, 0, nl * sizeof(long));
  shmem_team_sync(t);
  CHECK(shmem_alltoalls(t, b.dst, b.src, 1, 1, 10) == 0, "alltoalls, unit strides");
  sym_read(dst, b.dst, nl * sizeof(long));
  for (int i = 0; i < 10 * tn; ++i)
    CHECK(dst[i] == lv(seed, i / 10, round, (uint64_t)(tme * 10 + i % 10)), "alltoalls unit %d", i);
  sym_fill(b.dst, 0, nl * sizeof(long));
  shmem_team_sync(t);
  CHECK(shmem_alltoalls(t, b.dst, b.src, 2, 3, 10) == 0, "alltoalls");
  sym_read(dst, b.dst, nl * sizeof(long));
  for (int r = 0; r < tn; ++r)
    for (int i = 0; i < 10; ++i)
      CHECK(dst[2 * (r * 10 + i)] == lv(seed, r, round, (uint64_t)(3 * (tme * 10 + i))),
            "alltoalls %d %d", r, i);
  /* reductions against references */
  CHECK(shmem_double_sum_reduce(t, b.fd, b.fs, M) == 0, "sum_reduce");
  CHECK(shmem_int_max_reduce(t, b.id, b.is, M) == 0, "max_reduce");
  sym_read(fd, b.fd, sizeof(fd));
  sym_read(id, b.id, sizeof(id));
  for (int i = 0; i < M; ++i) {
    double s = 0;
    int mx = -1;
    for (int r = 0; r < tn; ++r) {
      s += (double)(val(seed, r, round + 1, (uint64_t)i) % 1000) / 8.0;
      const int v = (int)(val(seed, r, round + 2, (uint64_t)i) % 100000);
      mx = v > mx ? v : mx;
    }
    CHECK(fd[i] == s, "sum %d: %f want %f", i, fd[i], s);
    CHECK(id[i] == mx, "max %d: %d want %d", i, id[i], mx);
  }
  CHECK(shmem_min_reduce(t, b.id, b.is, M) == 0, "min_reduce (generic)");
  CHECK(shmem_xor_reduce(t, b.dst, b.src, M) == 0, "xor_reduce (generic, long as int64)");
  CHECK(shmem_int_prod_reduce(t, b.id + 1, b.is + 1, 0) == 0, "empty prod_reduce");
  sym_read(id, b.id, sizeof(id));
  sym_read(dst, b.dst, M * sizeof(long));
  for (int i = 0; i < M; ++i) {
    int mn = 1 << 30;
    long x = 0;
    for (int r = 0; r < tn; ++r) {
      const int v = (int)(val(seed, r, round + 2, (uint64_t)i) % 100000);
      mn = v < mn ? v : mn;
      x ^= lv(seed, r, round, (uint64_t)i);
    }
    CHECK(id[i] == mn && dst[i] == x, "min/xor %d", i);
  }
  /* long double and complex (reduced by pulls): exact small values */
  long double ls_[M], ld_[M];
  double _Complex cs_[M], cd_[M];
  for (int i = 0; i < M; ++i) {
    ls_[i] = (long double)(val(seed, tme, round + 3, (uint64_t)i) % 1000) / 4.0L;
    cs_[i] = (double)(val(seed, tme, round + 4, (uint64_t)i) % 64) +
             (double)(val(seed, tme, round + 5, (uint64_t)i) % 64) * I;
  }
  sym_write(b.ls, ls_, sizeof(ls_));
  sym_write(b.cs, cs_, sizeof(cs_));
  shmem_team_sync(t);
  CHECK(shmem_longdouble_sum_reduce(t, b.ld, b.ls, M) == 0, "longdouble sum_reduce");
  CHECK(shmem_sum_reduce(t, b.cd, b.cs, M) == 0, "complexd sum_reduce (generic)");
  sym_read(ld_, b.ld, sizeof(ld_));
  sym_read(cd_, b.cd, sizeof(cd_));
  for (int i = 0; i < M; ++i) {
    long double ls = 0;
    double _Complex cs = 0;
    for (int r = 0; r < tn; ++r) {
      ls += (long double)(val(seed, r, round + 3, (uint64_t)i) % 1000) / 4.0L;
      cs += (double)(val(seed, r, round + 4, (uint64_t)i) % 64) +
            (double)(val(seed, r, round + 5, (uint64_t)i) % 64) * I;
    }
    CHECK(ld_[i] == ls, "longdouble sum %d", i);
    CHECK(creal(cd_[i]) == creal(cs) && cimag(cd_[i]) == cimag(cs), "complex sum %d", i);
  }
  CHECK(shmem_longdouble_max_reduce(t, b.ls, b.ls, M) == 0, "longdouble max_reduce in place");
  sym_read(ls_, b.ls, sizeof(ls_));
  for (int i = 0; i < M; ++i) {
    long double mx = 0;
    for (int r = 0; r < tn; ++r) {
      const long double v = (long double)(val(seed, r, round + 3, (uint64_t)i) % 1000) / 4.0L;
      mx = v > mx ? v : mx;
    }
    CHECK(ls_[i] == mx, "longdouble max %d", i);
  }
  shmem_team_sync(t);
  free(dst);
  free(src);
}

int main(void) {
  shmem_init();
  const int me = shmem_my_pe(), n = shmem_n_pes();
  const uint64_t seed = agreed_seed();
  struct bufs bufs = alloc_bufs(n);
  team_check(SHMEM_TEAM_WORLD, seed, 10, bufs);

  /* the even PEs, as a team; a context on it addresses them by team number */
  shmem_team_t evens;
  CHECK(shmem_team_split_strided(SHMEM_TEAM_WORLD, 0, 2, (n + 1) / 2, NULL, 0, &evens) == 0,
        "split_strided");
  CHECK((me % 2 == 0) == (evens != SHMEM_TEAM_INVALID), "membership");
  if (evens != SHMEM_TEAM_INVALID) {
    CHECK(shmem_team_my_pe(evens) == me / 2 && shmem_team_n_pes(evens) == (n + 1) / 2,
          "team numbers");
    CHECK(shmem_team_translate_pe(evens, shmem_team_my_pe(evens), SHMEM_TEAM_WORLD) == me,
          "translate");
    team_check(evens, seed, 20, bufs);
    shmem_ctx_t ctx;
    CHECK(shmem_team_create_ctx(evens, 0, &ctx) == 0, "team_create_ctx");
    shmem_team_t back;
    CHECK(shmem_ctx_get_team(ctx, &back) == 0 && back == evens, "ctx_get_team");
    shmem_ctx_destroy(ctx);
  }
  /* team-relative PE numbers in a context: put to team member (rank + 1) */
  int* word = (int*)shmem_calloc(1, sizeof(int));
  if (evens != SHMEM_TEAM_INVALID) {
    shmem_ctx_t ctx;
    CHECK(shmem_team_create_ctx(evens, 0, &ctx) == 0, "team_create_ctx");
    const int tn = shmem_team_n_pes(evens), tr = shmem_team_my_pe(evens);
    shmem_ctx_int_p(ctx, word, 1000 + me, (tr + 1) % tn);
    shmem_ctx_quiet(ctx);
    shmem_team_sync(evens);
    const int from_world = 2 * ((tr + tn - 1) % tn);
    CHECK(sym_int(word) == 1000 + from_world, "ctx put by team number: %d, want %d", sym_int(word),
          1000 + from_world);
    shmem_ctx_destroy(ctx);
  }
  shmem_barrier_all();
  shmem_team_destroy(evens);

  /* split_2d: x teams of 2 */
  shmem_team_t xt, yt;
  CHECK(shmem_team_split_2d(SHMEM_TEAM_WORLD, 2, NULL, 0, &xt, NULL, 0, &yt) == 0, "split_2d");
  CHECK(shmem_team_my_pe(xt) == me % 2 && shmem_team_my_pe(yt) == me / 2, "2d ranks %d %d",
        shmem_team_my_pe(xt), shmem_team_my_pe(yt));
  shmem_team_destroy(xt);
  shmem_team_destroy(yt);

  /* deprecated active-set forms over all PEs, then over the odd PEs */
  long* psync = (long*)shmem_malloc(SHMEM_REDUCE_SYNC_SIZE * sizeof(long));
  long init_sync[SHMEM_REDUCE_SYNC_SIZE];
  for (int i = 0; i < SHMEM_REDUCE_SYNC_SIZE; ++i) init_sync[i] = SHMEM_SYNC_VALUE;
  sym_write(psync, init_sync, sizeof(init_sync));
  long* pwrk = (long*)shmem_malloc(SHMEM_REDUCE_MIN_WRKDATA_SIZE * M * sizeof(long));
  const size_t ab = (size_t)M * (size_t)n * sizeof(long);
  long* a = (long*)shmem_malloc(ab);
  long* b = (long*)shmem_malloc(ab);
  long* va = (long*)malloc(ab); /* local views of a and b */
  long* vb = (long*)malloc(ab);
  shmem_barrier_all();
  for (int set = 0; set < 2; ++set) {
    const int start = set, log_stride = set, size = set ? n / 2 : n;
    const int in = set ? (me % 2 == 1 && me / 2 < size) : 1;
    if (size == 0 || !in) continue;
    const int rank = set ? me / 2 : me;
    for (int i = 0; i < M * n; ++i) va[i] = lv(seed, rank, 40 + set, (uint64_t)i);
    sym_write(a, va, ab);
    shmem_barrier(start, log_stride, size, psync);
    shmem_long_sum_to_all(b, a, M, start, log_stride, size, pwrk, psync);
    sym_read(vb, b, ab);
    for (int i = 0; i < M; ++i) {
      long s = 0;
      for (int r = 0; r < size; ++r) s += lv(seed, r, 40 + set, (uint64_t)i);
      CHECK(vb[i] == s, "set %d sum_to_all %d", set, i);
    }
    shmem_long_max_to_all(a, a, M, start, log_stride, size, pwrk, psync); /* in place */
    sym_read(va, a, ab);
    for (int i = 0; i < M; ++i) {
      long mx = lv(seed, 0, 40 + set, (uint64_t)i);
      for (int r = 1; r < size; ++r)
        mx = lv(seed, r, 40 + set, (uint64_t)i) > mx ? lv(seed, r, 40 + set, (uint64_t)i) : mx;
      CHECK(va[i] == mx, "set %d max_to_all %d", set, i);
    }
    for (int i = 0; i < M * n; ++i) va[i] = lv(seed, rank, 50 + set, (uint64_t)i);
    sym_write(a, va, ab);
    if (rank == size - 1) { /* the 1.4 broadcast leaves the root's dest alone */
      for (int i = 0; i < M; ++i) vb[i] = lv(seed, rank, 60 + set, (uint64_t)i);
      sym_write(b, vb, M * sizeof(long));
    }
    shmem_barrier(start, log_stride, size, psync);
    shmem_broadcast64(b, a, M, size - 1, start, log_stride, size, psync);
    sym_read(vb, b, ab);
    for (int i = 0; i < M; ++i)
      CHECK(vb[i] == lv(seed, size - 1, (rank != size - 1 ? 50 : 60) + set, (uint64_t)i),
            "set %d broadcast64 %d", set, i);
    shmem_fcollect64(b, a, M, start, log_stride, size, psync);
    sym_read(vb, b, ab);
    for (int i = 0; i < M * size; ++i)
      CHECK(vb[i] == lv(seed, i / M, 50 + set, (uint64_t)(i % M)), "set %d fcollect64 %d", set, i);
    shmem_collect64(b, a, (size_t)rank + 1, start, log_stride, size, psync);
    sym_read(vb, b, ab);
    for (int r = 0, at = 0; r < size; at += r + 1, ++r)
      for (int i = 0; i <= r; ++i)
        CHECK(vb[at + i] == lv(seed, r, 50 + set, (uint64_t)i), "set %d collect64 %d %d", set, r,
              i);
    shmem_barrier(start, log_stride, size,
                  psync); /* b was just read: alltoall's dest must be ready */
    shmem_alltoall64(b, a, 3, start, log_stride, size, psync);
    sym_read(vb, b, ab);
    for (int i = 0; i < 3 * size; ++i)
      CHECK(vb[i] == lv(seed, i / 3, 50 + set, (uint64_t)(rank * 3 + i % 3)),
            "set %d alltoall64 %d", set, i);
    shmem_barrier(start, log_stride, size, psync);
    shmem_alltoalls64(b, a, 1, 1, 4, start, log_stride, size, psync);
    sym_read(vb, b, ab);
    for (int i = 0; i < 4 * size; ++i)
      CHECK(vb[i] == lv(seed, i / 4, 50 + set, (uint64_t)(rank * 4 + i % 4)),
            "set %d alltoalls64 unit %d", set, i);
    sym_fill(b, 0, ab);
    shmem_barrier(start, log_stride, size,
                  psync); /* b cleared on every member: ready for alltoalls */
    shmem_alltoalls64(b, a, 2, 3, 4, start, log_stride, size, psync);
    sym_read(vb, b, ab);
    for (int r = 0; r < size; ++r)
      for (int i = 0; i < 4; ++i)
        CHECK(vb[2 * (r * 4 + i)] == lv(seed, r, 50 + set, (uint64_t)(3 * (rank * 4 + i))),
              "set %d alltoalls64 %d %d", set, r, i);
    shmem_barrier(start, log_stride, size, psync);
  }
  shmem_barrier_all();
  sym_read(init_sync, psync, sizeof(init_sync));
  for (int i = 0; i < SHMEM_REDUCE_SYNC_SIZE; ++i)
    CHECK(init_sync[i] == SHMEM_SYNC_VALUE, "pSync[%d] not restored", i);
  free(vb);
  free(va);
  shmem_free(b);
  shmem_free(a);
  shmem_free(pwrk);
  shmem_free(psync);
  shmem_free(word);
  shmem_free(bufs.cd);
  shmem_free(bufs.cs);
  shmem_free(bufs.ld);
  shmem_free(bufs.ls);
  shmem_free(bufs.id);
  shmem_free(bufs.is);
  shmem_free(bufs.fd);
  shmem_free(bufs.fs);
  shmem_free(bufs.dst);
  shmem_free(bufs.src);
  if (me == 0) printf("PASS coll %d PEs\n", n);
  shmem_finalize();
  return 0;
}
