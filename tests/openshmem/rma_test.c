/* Remote memory access: typed, sized and mem put/get, p/g, iput/iget, nbi, contexts and the C11
 * generic names (OpenSHMEM 1.5 section 9.5). Each PE writes to the next and reads from the one
 * after; every element is checked, with the bytes around each block checked untouched. Own
 * symmetric memory is read and written through the API (check.h), so the test also runs with the
 * heap in device memory (SYMMETRA_BACKEND=cuda). */
#include <string.h>

#include <shmemx.h>

#include "check.h"

#define N 4099 /* odd: not a multiple of any vector width */

int main(void) {
  shmem_init();
  const int me = shmem_my_pe(), n = shmem_n_pes();
  const int next = (me + 1) % n, prev = (me + n - 1) % n;
  const uint64_t seed = agreed_seed();
  long* dl = (long*)shmem_malloc((N + 2) * sizeof(long));
  double* dd = (double*)shmem_malloc((N + 2) * sizeof(double));
  char* dc = (char*)shmem_malloc(N + 2);
  long double* dq = (long double*)shmem_malloc(8 * sizeof(long double));
  long sl[N];
  double sd[N];
  char sc[N];
  long double sq[8];
  static long fl[N + 2];
  static double fd[N + 2];
  for (int round = 0; round < 3; ++round) {
    for (int i = 0; i < N + 2; ++i) {
      fl[i] = -1;
      fd[i] = -1.0;
    }
    sym_write(dl, fl, sizeof(fl));
    sym_write(dd, fd, sizeof(fd));
    sym_fill(dc, 'x', N + 2);
    for (int i = 0; i < N; ++i) {
      sl[i] = (long)val(seed, me, round, (uint64_t)i);
      sd[i] = (double)(val(seed, me, round, (uint64_t)i) >> 11);
      sc[i] = (char)val(seed, me, round, (uint64_t)i);
    }
    for (int i = 0; i < 8; ++i) sq[i] = (long double)val(seed, me, round, (uint64_t)i) / 3.0L;
    shmem_barrier_all();
    const size_t cnt = 1 + (size_t)(val(seed, 99, round, 0) % N); /* same on every PE */
    switch (round) {
      case 0: /* blocking typed */
        shmem_long_put(dl + 1, sl, cnt, next);
        shmem_double_put(dd + 1, sd, cnt, next);
        shmem_char_put(dc + 1, sc, cnt, next);
        shmem_longdouble_put(dq, sq, 8, next);
        break;
      case 1: /* non-blocking, completed by quiet; context forms */
      {
        shmem_ctx_t ctx;
        CHECK(shmem_ctx_create(SHMEM_CTX_PRIVATE, &ctx) == 0, "ctx_create");
        shmem_ctx_long_put_nbi(ctx, dl + 1, sl, cnt, next);
        shmem_double_put_nbi(dd + 1, sd, cnt, next);
        shmem_putmem_nbi(dc + 1, sc, cnt, next);
        shmem_put128(dq, sq, 8, next);
        shmem_ctx_quiet(ctx);
        shmem_quiet();
        shmem_ctx_destroy(ctx);
        break;
      }
      default: /* sized and C11 generic names */
        shmem_put64(dl + 1, sl, cnt, next);
        shmem_put(dd + 1, sd, cnt, next);
        shmem_put(SHMEM_CTX_DEFAULT, dc + 1, sc, cnt, next);
        shmem_put(dq, sq, 8, next);
        break;
    }
    shmem_barrier_all();
    long* vl = (long*)sym_copy(dl, (N + 2) * sizeof(long));
    double* vd = (double*)sym_copy(dd, (N + 2) * sizeof(double));
    char* vc = (char*)sym_copy(dc, N + 2);
    long double* vq = (long double*)sym_copy(dq, 8 * sizeof(long double));
    for (size_t i = 0; i < cnt; ++i) {
      CHECK(vl[i + 1] == (long)val(seed, prev, round, i), "round %d long %zu", round, i);
      CHECK(vd[i + 1] == (double)(val(seed, prev, round, i) >> 11), "round %d double %zu", round,
            i);
      CHECK(vc[i + 1] == (char)val(seed, prev, round, i), "round %d char %zu", round, i);
    }
    for (int i = 0; i < 8; ++i)
      CHECK(vq[i] == (long double)val(seed, prev, round, (uint64_t)i) / 3.0L,
            "round %d long double %d", round, i);
    CHECK(vl[0] == -1 && vl[cnt + 1] == -1 && vc[0] == 'x' && vc[cnt + 1] == 'x',
          "round %d wrote outside the block", round);
    free(vl);
    free(vd);
    free(vc);
    free(vq);

    /* get back what the next PE received (from me) */
    long gl[N];
    double gd[N];
    char gc[N];
    memset(gl, 0, sizeof(gl));
    if (round == 0) {
      shmem_long_get(gl, dl + 1, cnt, next);
      shmem_double_get(gd, dd + 1, cnt, next);
      shmem_getmem(gc, dc + 1, cnt, next);
    } else if (round == 1) {
      shmem_long_get_nbi(gl, dl + 1, cnt, next);
      shmem_get64_nbi(gd, dd + 1, cnt, next);
      shmem_char_get_nbi(gc, dc + 1, cnt, next);
      shmem_quiet();
    } else {
      shmem_get(gl, dl + 1, cnt, next);
      shmem_get(SHMEM_CTX_DEFAULT, gd, dd + 1, cnt, next);
      shmem_get8(gc, dc + 1, cnt, next);
    }
    for (size_t i = 0; i < cnt; ++i) {
      CHECK(gl[i] == sl[i] && gd[i] == sd[i] && gc[i] == sc[i], "round %d get %zu", round, i);
    }
    shmem_barrier_all();
  }

  /* shmemx_flush (shmemx.h): a get_nbi's destination is whole after it, without a quiet */
  long* flush_buf = (long*)shmem_malloc(N * sizeof(long));
  long flocal[N], fgot[N];
  for (int i = 0; i < N; ++i) flocal[i] = (long)val(seed, me, 21, (uint64_t)i);
  sym_write(flush_buf, flocal, sizeof(flocal));
  shmem_barrier_all();
  memset(fgot, 0, sizeof(fgot));
  shmem_long_get_nbi(fgot, flush_buf, N, next);
  shmemx_ctx_flush(SHMEM_CTX_DEFAULT);
  for (int i = 0; i < N; ++i)
    CHECK(fgot[i] == (long)val(seed, next, 21, (uint64_t)i), "flush: get_nbi element %d", i);
  shmem_barrier_all();
  shmem_free(flush_buf);

  /* p and g, typed and generic */
  int* pi = (int*)shmem_malloc((size_t)n * sizeof(int));
  float* pf = (float*)shmem_malloc(sizeof(float));
  for (int pe = 0; pe < n; ++pe) shmem_int_p(&pi[me], (int)val(seed, me, 7, (uint64_t)pe), pe);
  shmem_p(pf, (float)me + 0.5f, next);
  shmem_barrier_all();
  int* vi = (int*)sym_copy(pi, (size_t)n * sizeof(int));
  for (int pe = 0; pe < n; ++pe)
    CHECK(vi[pe] == (int)val(seed, pe, 7, (uint64_t)me), "p from PE %d", pe);
  free(vi);
  CHECK(sym_float(pf) == (float)prev + 0.5f, "generic p of float");
  for (int k = 0; k < n; ++k)
    CHECK(shmem_int_g(&pi[k], next) == (int)val(seed, k, 7, (uint64_t)next), "g %d", k);
  CHECK(shmem_g(pf, next) == (float)me + 0.5f, "generic g");

  /* strided: every third element of mine into every second of the next PE's */
  int64_t* is = (int64_t*)shmem_malloc(3 * 100 * sizeof(int64_t));
  int64_t src[300];
  int64_t minus7[300];
  for (int i = 0; i < 300; ++i) {
    minus7[i] = -7;
    src[i] = (int64_t)val(seed, me, 8, (uint64_t)i);
  }
  sym_write(is, minus7, sizeof(minus7));
  shmem_barrier_all();
  shmem_int64_iput(is, src, 2, 3, 100, next);
  shmem_barrier_all();
  int64_t* vs = (int64_t*)sym_copy(is, sizeof(minus7));
  for (int i = 0; i < 300; ++i) {
    const int64_t want =
        (i % 2 == 0 && i / 2 < 100) ? (int64_t)val(seed, prev, 8, (uint64_t)(3 * (i / 2))) : -7;
    CHECK(vs[i] == want, "iput element %d", i);
  }
  free(vs);
  int64_t back[100];
  shmem_iget64(back, is, 1, 2, 100, next); /* what next received from me */
  for (int i = 0; i < 100; ++i) CHECK(back[i] == src[3 * i], "iget element %d", i);
  shmem_barrier_all();
  shmem_free(is);
  shmem_free(pf);
  shmem_free(pi);
  shmem_free(dq);
  shmem_free(dc);
  shmem_free(dd);
  shmem_free(dl);
  if (me == 0) printf("PASS rma %d PEs\n", n);
  shmem_finalize();
  return 0;
}
