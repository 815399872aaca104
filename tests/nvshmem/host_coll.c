/* NVSHMEM's team collectives from host code, in C, as a user's host code calls them: built
 * unchanged against nvshmem.h, run on the CPU backend (CI) and the GPU's. Inputs come from a fresh
 * seed from PE 0; every result is checked against the same operation computed here over every
 * PE's inputs (which each PE can compute from the seed and the PE number). The heap is written
 * and read through the API only (device memory on the GPU). */
#include <nvshmem.h>
#include <nvshmemx.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "test_util.h"

static unsigned long long seed;
/* Element i of PE pe's input for test `t`: a hash of the seed, all bits varied. */
static unsigned long long value(int t, int pe, size_t i) {
  unsigned long long x = seed ^ ((unsigned long long)t << 56) ^ ((unsigned long long)pe << 40) ^ i;
  x ^= x >> 33;
  x *= 0xff51afd7ed558ccdULL;
  x ^= x >> 33;
  x *= 0xc4ceb9fe1a85ec53ULL;
  return x ^ (x >> 33);
}

/* Reduction checks: each PE's nreduce inputs (from value()) go in through put; the result, read
 * back through get, must equal the reference combined in PE order. in_place uses dest == src. */
#define REDUCE_CHECK(NAME, OP, T, COMBINE, MAKE)                                             \
  static void check_##NAME##_##OP(nvshmem_team_t team, const int* members, int size, int t,  \
                                  size_t nreduce, int in_place) {                            \
    T* src = (T*)nvshmem_malloc(nreduce * sizeof(T));                                        \
    T* dest = in_place ? src : (T*)nvshmem_malloc(nreduce * sizeof(T));                      \
    T* mine = (T*)malloc(nreduce * sizeof(T));                                               \
    T* got = (T*)malloc(nreduce * sizeof(T));                                                \
    const int me = nvshmem_my_pe();                                                          \
    for (size_t i = 0; i < nreduce; ++i) mine[i] = MAKE(value(t, me, i));                    \
    nvshmem_##NAME##_put(src, mine, nreduce, me);                                            \
    nvshmem_quiet();                                                                         \
    if (size > 0) {                                                                          \
      const int rc = nvshmem_##NAME##_##OP##_reduce(team, dest, src, nreduce);               \
      CHECK(rc == 0, #NAME "_" #OP "_reduce returned %d", rc);                               \
      nvshmem_##NAME##_get(got, dest, nreduce, me);                                          \
      for (size_t i = 0; i < nreduce; ++i) {                                                 \
        T want = MAKE(value(t, members[0], i));                                              \
        for (int k = 1; k < size; ++k) {                                                     \
          const T b = MAKE(value(t, members[k], i));                                         \
          want = COMBINE(want, b);                                                           \
        }                                                                                    \
        if (memcmp(&got[i], &want, sizeof(T)) != 0) {                                        \
          CHECK(0, #NAME "_" #OP "_reduce (n=%zu, in place %d): element %zu wrong", nreduce, \
                in_place, i);                                                                \
          break;                                                                             \
        }                                                                                    \
      }                                                                                      \
    }                                                                                        \
    nvshmem_barrier_all();                                                                   \
    free(got);                                                                               \
    free(mine);                                                                              \
    if (!in_place) nvshmem_free(dest);                                                       \
    nvshmem_free(src);                                                                       \
  }
#define ADD(a, b) ((a) + (b))
#define MUL(a, b) ((a) * (b))
#define MAX(a, b) ((b) > (a) ? (b) : (a))
#define MIN(a, b) ((b) < (a) ? (b) : (a))
#define AND(a, b) ((a) & (b))
#define OR(a, b) ((a) | (b))
#define XOR(a, b) ((a) ^ (b))
#define AS_UINT(x) ((unsigned int)(x))
#define AS_ULL(x) ((unsigned long long)(x))
#define AS_LONG(x) ((long)(x))
#define AS_SMALL_INT(x) ((int)((x) % 2001) - 1000)
#define AS_SCHAR(x) ((signed char)((x) % 256))
#define AS_EXACT_FLOAT(x) ((float)((x) % 4001) - 2000.0f) /* sums of these are exact */
#define AS_DOUBLE(x) ((double)(x) / 3.0)
#define AS_POW2_DOUBLE(x) ((x) % 2 ? 2.0 : 0.5) /* products of these are exact */
#define AS_UINT16(x) ((uint16_t)(x))
REDUCE_CHECK(int, sum, int, ADD, AS_SMALL_INT)
REDUCE_CHECK(uint, xor, unsigned int, XOR, AS_UINT)
REDUCE_CHECK(ulonglong, and, unsigned long long, AND, AS_ULL)
REDUCE_CHECK(uint16, or, uint16_t, OR, AS_UINT16)
REDUCE_CHECK(long, max, long, MAX, AS_LONG)
REDUCE_CHECK(schar, min, signed char, MIN, AS_SCHAR)
REDUCE_CHECK(float, sum, float, ADD, AS_EXACT_FLOAT)
REDUCE_CHECK(double, min, double, MIN, AS_DOUBLE)
REDUCE_CHECK(double, prod, double, MUL, AS_POW2_DOUBLE)
REDUCE_CHECK(ulonglong, prod, unsigned long long, MUL, AS_ULL)

/* The reductions over `team` (whose world members are members[0..size), size 0 off the team). */
static void check_reductions(nvshmem_team_t team, const int* members, int size) {
  const size_t sizes[] = {1, 7, 1000 + seed % 1000};
  for (int s = 0; s < 3; ++s) {
    const size_t nr = sizes[s];
    for (int in_place = 0; in_place < 2; ++in_place) {
      check_int_sum(team, members, size, 1, nr, in_place);
      check_uint_xor(team, members, size, 2, nr, in_place);
      check_ulonglong_and(team, members, size, 3, nr, in_place);
      check_uint16_or(team, members, size, 4, nr, in_place);
      check_long_max(team, members, size, 5, nr, in_place);
      check_schar_min(team, members, size, 6, nr, in_place);
      check_float_sum(team, members, size, 7, nr, in_place);
      check_double_min(team, members, size, 8, nr, in_place);
      check_double_prod(team, members, size, 9, nr, in_place);
      check_ulonglong_prod(team, members, size, 10, nr, in_place);
    }
  }
}

/* reducescatter, fcollect, alltoall and broadcast (typed and _mem) over `team`. */
static void check_moves(nvshmem_team_t team, const int* members, int size, int rank) {
  const int me = nvshmem_my_pe(), n = nvshmem_n_pes();
  const size_t per = 4 + seed % 300, total = per * (size_t)n;
  long* src = (long*)nvshmem_malloc(total * sizeof(long));
  long* dest = (long*)nvshmem_malloc(total * sizeof(long));
  long* mine = (long*)malloc(total * sizeof(long));
  long* got = (long*)malloc(total * sizeof(long));
  for (size_t i = 0; i < total; ++i) mine[i] = (long)value(20, me, i);
  nvshmem_long_put(src, mine, total, me);
  nvshmem_quiet();
  if (size > 0) {
    /* reducescatter: rank r gets block r of the sum (wrapping, as unsigned). */
    CHECK(nvshmem_long_sum_reducescatter(team, dest, src, per) == 0, "reducescatter rc");
    nvshmem_long_get(got, dest, per, me);
    for (size_t i = 0; i < per; ++i) {
      unsigned long want = 0;
      for (int k = 0; k < size; ++k) want += (unsigned long)value(20, members[k], rank * per + i);
      if ((unsigned long)got[i] != want) {
        CHECK(0, "long_sum_reducescatter: element %zu wrong", i);
        break;
      }
    }
    /* fcollect: every member's first `per` elements, in team order. */
    CHECK(nvshmem_long_fcollect(team, dest, src, per) == 0, "fcollect rc");
    nvshmem_long_get(got, dest, per * size, me);
    for (size_t i = 0; i < per * size; ++i)
      if (got[i] != (long)value(20, members[i / per], i % per)) {
        CHECK(0, "long_fcollect: element %zu wrong", i);
        break;
      }
    /* alltoall: block j of member k's source lands as block k of member j's dest. */
    CHECK(nvshmem_long_alltoall(team, dest, src, per) == 0, "alltoall rc");
    nvshmem_long_get(got, dest, per * size, me);
    for (size_t i = 0; i < per * size; ++i)
      if (got[i] != (long)value(20, members[i / per], rank * per + i % per)) {
        CHECK(0, "long_alltoall: element %zu wrong", i);
        break;
      }
    /* alltoalls: every second source element of each block, packed (sst 2, dst 1). */
    const size_t half = per / 2;
    CHECK(nvshmem_long_alltoalls(team, dest, src, 1, 2, half) == 0, "alltoalls rc");
    nvshmem_long_get(got, dest, half * size, me);
    for (size_t i = 0; i < half * size; ++i)
      if (got[i] != (long)value(20, members[i / half], (rank * half + i % half) * 2)) {
        CHECK(0, "long_alltoalls: element %zu wrong", i);
        break;
      }
    /* broadcast from the team's last rank, typed then in bytes (an odd count). */
    const int root = size - 1;
    CHECK(nvshmem_long_broadcast(team, dest, src, per, root) == 0, "broadcast rc");
    nvshmem_long_get(got, dest, per, me);
    for (size_t i = 0; i < per; ++i)
      if (got[i] != (long)value(20, members[root], i)) {
        CHECK(0, "long_broadcast: element %zu wrong", i);
        break;
      }
    const size_t bytes = per * sizeof(long) - 3;
    CHECK(nvshmem_broadcastmem(team, dest, src, bytes, 0) == 0, "broadcastmem rc");
    CHECK(nvshmem_fcollectmem(team, dest, src, bytes) == 0, "fcollectmem rc");
    nvshmem_getmem(got, dest, bytes * size, me);
    for (int k = 0; k < size; ++k) {
      for (size_t i = 0; i < per; ++i) mine[i] = (long)value(20, members[k], i);
      CHECK(memcmp((char*)got + k * bytes, mine, bytes) == 0, "fcollectmem: block %d wrong", k);
    }
    CHECK(nvshmem_alltoallmem(team, dest, src, bytes) == 0, "alltoallmem rc");
    nvshmem_getmem(got, dest, bytes * size, me);
    for (int k = 0; k < size; ++k) {
      for (size_t i = 0; i < total; ++i) mine[i] = (long)value(20, members[k], i);
      CHECK(memcmp((char*)got + k * bytes, (char*)mine + rank * bytes, bytes) == 0,
            "alltoallmem: block %d wrong", k);
    }
    CHECK(nvshmem_barrier(team) == 0 && nvshmem_team_sync(team) == 0 && nvshmem_sync(team) == 0,
          "barrier or sync rc");
  }
  nvshmem_barrier_all();
  free(got);
  free(mine);
  nvshmem_free(dest);
  nvshmem_free(src);
}

int main(void) {
  nvshmem_init();
  const int me = nvshmem_my_pe(), n = nvshmem_n_pes();
  /* A fresh seed from PE 0, through a broadcast checked by every PE's own view later. */
  unsigned long long* s = (unsigned long long*)nvshmem_calloc(2, sizeof(*s));
  if (me == 0) {
    const unsigned long long v =
        (unsigned long long)time(NULL) ^ ((unsigned long long)getpid() << 20);
    nvshmem_ulonglong_p(s + 1, v, 0);
  }
  nvshmem_barrier_all();
  CHECK(nvshmem_ulonglong_broadcast(NVSHMEM_TEAM_WORLD, s, s + 1, 1, 0) == 0, "seed broadcast");
  seed = nvshmem_ulonglong_g(s, me);
  CHECK(seed == nvshmem_ulonglong_g(s + 1, 0), "seed differs from PE 0's");

  int* world = (int*)calloc((size_t)n, sizeof(int));
  for (int k = 0; k < n; ++k) world[k] = k;
  check_reductions(NVSHMEM_TEAM_WORLD, world, n);
  check_moves(NVSHMEM_TEAM_WORLD, world, n, me);

  /* NVSHMEMX_TEAM_SAME_MYPE_NODE: the PEs with this PE's rank on their host, one per host
   * (nvshmrun -n 4 -ppn 2 in the install test: PEs 0 and 2, 1 and 3), and a sum over it. */
  {
    const nvshmem_team_t col = NVSHMEMX_TEAM_SAME_MYPE_NODE;
    const int per_host = nvshmem_team_n_pes(NVSHMEMX_TEAM_NODE), hosts = n / per_host;
    CHECK(nvshmem_team_n_pes(col) == hosts && nvshmem_team_my_pe(col) == me / per_host,
          "same-mype-node team: rank %d of %d, want %d of %d", nvshmem_team_my_pe(col),
          nvshmem_team_n_pes(col), me / per_host, hosts);
    long* v = (long*)nvshmem_malloc(2 * sizeof(long));
    nvshmem_long_p(v + 1, me, me);
    nvshmem_quiet();
    CHECK(nvshmem_long_sum_reduce(col, v, v + 1, 1) == 0, "reduce over the column");
    long want = 0;
    for (int k = 0; k < hosts; ++k) want += me % per_host + k * per_host;
    CHECK(nvshmem_long_g(v, me) == want, "sum over the column %ld, want %ld", nvshmem_long_g(v, me),
          want);
    nvshmem_barrier_all();
    nvshmem_free(v);
  }

  /* The same over the odd PEs (a strided split; an empty team with one PE). */
  nvshmem_team_t odd = NVSHMEM_TEAM_INVALID;
  const int odd_size = n / 2;
  int* odds = (int*)calloc((size_t)(odd_size + 1), sizeof(int));
  for (int k = 0; k < odd_size; ++k) odds[k] = 2 * k + 1;
  if (odd_size > 0) {
    CHECK(nvshmem_team_split_strided(NVSHMEM_TEAM_WORLD, 1, 2, odd_size, NULL, 0, &odd) == 0,
          "split failed");
    const int in = me % 2 == 1;
    check_reductions(odd, odds, in ? odd_size : 0);
    check_moves(odd, odds, in ? odd_size : 0, in ? me / 2 : -1);
    if (!in) {
      CHECK(nvshmem_int_sum_reduce(odd, NULL, NULL, 1) != 0, "reduce over the invalid team ran");
      CHECK(nvshmem_barrier(odd) != 0, "barrier over the invalid team ran");
    }
    nvshmem_team_destroy(odd);
  }
  nvshmem_barrier_all();
  free(odds);
  free(world);
  nvshmem_free(s);
  nvshmem_finalize();
  if (failures == 0) printf("[pe %d] nvshmem host collectives: all passed (%d PEs)\n", me, n);
  return failures == 0 ? 0 : 1;
}
