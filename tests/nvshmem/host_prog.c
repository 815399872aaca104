/* An NVSHMEM program that uses only host calls, in C, as a user's host code would: it must build
 * unchanged against nvshmem.h and run on Symmetra's CPU backend (CI) as on the GPU. The heap is
 * read through the API only (on the GPU it is device memory, which host code cannot load). Each
 * PE checks its results against values computed here from the PE numbers, with a fresh seed from
 * PE 0, and exits 1 naming the first wrong value. */
#include <nvshmem.h>
#include <nvshmemx.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "test_util.h"

/* NVSHMEM's error helpers (nvshmemx.h), as NVIDIA's perftest utilities use them: a _JMP form sets
 * the status and jumps where its condition holds, and only there. -1: no jump. */
static int error_helpers(const void* p, int rc) {
  int status = 0;
  NVSHMEMI_NULL_ERROR_JMP(p, status, NVSHMEMX_ERROR_OUT_OF_MEMORY, out, "(expected: NULL)");
  status = rc;
  NVSHMEMI_NZ_ERROR_JMP(status, NVSHMEMX_ERROR_INTERNAL, out, "(expected: status %d)", rc);
  return -1;
out:
  return status;
}

int main(void) {
  if (nvshmemx_init_status() != NVSHMEM_STATUS_NOT_INITIALIZED) return 2;
  nvshmem_init();
  CHECK(nvshmemx_init_status() == NVSHMEM_STATUS_IS_INITIALIZED, "init status %d",
        nvshmemx_init_status());
  const int me = nvshmem_my_pe(), n = nvshmem_n_pes();
  CHECK(nvshmem_team_my_pe(NVSHMEM_TEAM_WORLD) == me, "world rank %d",
        nvshmem_team_my_pe(NVSHMEM_TEAM_WORLD));
  CHECK(nvshmem_team_n_pes(NVSHMEM_TEAM_WORLD) == n, "world size");
  /* One host: the node and shared teams are the world. */
  CHECK(nvshmem_team_my_pe(NVSHMEMX_TEAM_NODE) == me, "node rank %d",
        nvshmem_team_my_pe(NVSHMEMX_TEAM_NODE));
  CHECK(nvshmem_team_n_pes(NVSHMEM_TEAM_SHARED) == n, "shared size %d",
        nvshmem_team_n_pes(NVSHMEM_TEAM_SHARED));
  CHECK(nvshmem_team_my_pe(NVSHMEM_TEAM_INVALID) == -1, "invalid team's rank");
  /* One host: the PEs with this PE's rank on their host are this PE alone. */
  CHECK(nvshmem_team_n_pes(NVSHMEMX_TEAM_SAME_MYPE_NODE) == 1 &&
            nvshmem_team_my_pe(NVSHMEMX_TEAM_SAME_MYPE_NODE) == 0 &&
            nvshmem_team_translate_pe(NVSHMEMX_TEAM_SAME_MYPE_NODE, 0, NVSHMEM_TEAM_WORLD) == me,
        "same-mype-node team: rank %d of %d", nvshmem_team_my_pe(NVSHMEMX_TEAM_SAME_MYPE_NODE),
        nvshmem_team_n_pes(NVSHMEMX_TEAM_SAME_MYPE_NODE));
  nvshmem_team_config_t config = NVSHMEM_TEAM_CONFIG_INITIALIZER;
  config.num_contexts = 7;
  config.uniqueid = 7;
  CHECK(nvshmem_team_get_config(
            NVSHMEM_TEAM_WORLD,
            NVSHMEM_TEAM_CONFIG_MASK_NUM_CONTEXTS | NVSHMEM_TEAM_CONFIG_MASK_UNIQUEID,
            &config) == 0 &&
            config.num_contexts == 0 && config.uniqueid == ~0ull &&
            config.version == (2 << 16) + (int)sizeof(nvshmem_team_config_t),
        "get_config");
  CHECK(nvshmem_team_get_config(5, NVSHMEM_TEAM_CONFIG_MASK_NUM_CONTEXTS, &config) != 0,
        "get_config of team 5 (none)");
  if (me == 0) {
    CHECK(error_helpers(&config, 0) == -1, "error helper jumped without cause");
    CHECK(error_helpers(NULL, 0) == NVSHMEMX_ERROR_OUT_OF_MEMORY, "NVSHMEMI_NULL_ERROR_JMP");
    CHECK(error_helpers(&config, 5) == NVSHMEMX_ERROR_INTERNAL, "NVSHMEMI_NZ_ERROR_JMP");
  }
  int major = 0, minor = 0;
  char name[NVSHMEM_MAX_NAME_LEN];
  nvshmem_info_get_version(&major, &minor);
  nvshmem_info_get_name(name);
  CHECK(major == NVSHMEM_MAJOR_VERSION && minor == NVSHMEM_MINOR_VERSION, "version %d.%d", major,
        minor);
  CHECK(strlen(name) > 0, "empty name");

  /* A fresh seed from PE 0, through the heap. */
  unsigned long long* seed = (unsigned long long*)nvshmem_calloc(1, sizeof(*seed));
  CHECK(seed != NULL && nvshmem_ulonglong_g(seed, me) == 0, "calloc");
  nvshmem_barrier_all(); /* every PE has looked at its zero before PE 0 writes */
  if (me == 0) {
    const unsigned long long s =
        (unsigned long long)time(NULL) ^ ((unsigned long long)getpid() << 20);
    for (int pe = 0; pe < n; ++pe) nvshmem_ulonglong_p(seed, s, pe);
  }
  nvshmem_barrier_all();
  const unsigned long long s = nvshmem_ulonglong_g(seed, me);

  /* The tutorial's shift, with typed p, put and get; then every PE reads every other. */
  const size_t count = 1000 + s % 1000;
  int* shift = (int*)nvshmem_malloc(sizeof(int));
  long* block = (long*)nvshmem_malloc(count * sizeof(long));
  long* mine = (long*)malloc(count * sizeof(long));
  for (size_t i = 0; i < count; ++i) mine[i] = (long)(s % 9973) * 1000003L + me * 7919L + (long)i;
  nvshmem_int_p(shift, me, (me + 1) % n);
  nvshmem_long_put(block, mine, count, (me + 1) % n);
  nvshmem_barrier_all();
  const int from = (me + n - 1) % n;
  CHECK(nvshmem_int_g(shift, me) == from, "shift got %d, want %d", nvshmem_int_g(shift, me), from);
  long* got = (long*)malloc(count * sizeof(long));
  for (int pe = 0; pe < n; ++pe) {
    nvshmem_long_get(got, block, count, pe);
    const int src = (pe + n - 1) % n;
    for (size_t i = 0; i < count; ++i) {
      const long want = (long)(s % 9973) * 1000003L + src * 7919L + (long)i;
      if (got[i] != want) {
        CHECK(0, "get from PE %d: [%zu] = %ld, want %ld", pe, i, got[i], want);
        break;
      }
    }
    CHECK(nvshmem_int_g(shift, pe) == src, "int_g from PE %d", pe);
  }
  /* nvshmem_ptr on the CPU backend: every PE of this host is reachable by loads and stores. */
  const char* backend = getenv("SYMMETRA_BACKEND");
  if (backend != NULL && strcmp(backend, "cpu") == 0) {
    int* peer = (int*)nvshmem_ptr(shift, from);
    CHECK(peer != NULL && *peer == (from + n - 1) % n, "nvshmem_ptr to PE %d", from);
  }
  nvshmem_barrier_all();

  /* Atomics: every PE adds me + 1 to PE 0's counter and sets its bit in every PE's mask; a
   * swap chain and a compare-swap that only PE 0's value can win; float fetch and set. */
  long long* counter = (long long*)nvshmem_calloc(1, sizeof(long long));
  uint64_t* mask = (uint64_t*)nvshmem_calloc(1, sizeof(uint64_t));
  int* owner = (int*)nvshmem_calloc(1, sizeof(int));
  double* dv = (double*)nvshmem_calloc(1, sizeof(double));
  const long long base = (long long)(s % 1000);
  (void)nvshmem_longlong_atomic_fetch_add(counter, base + me + 1, 0);
  for (int pe = 0; pe < n; ++pe) nvshmem_uint64_atomic_or(mask, (uint64_t)1 << me, pe);
  nvshmem_int_atomic_inc(owner, (me + 1) % n); /* every PE's owner becomes 1 */
  nvshmem_barrier_all();
  CHECK(nvshmem_longlong_atomic_fetch(counter, 0) == n * base + (long long)n * (n + 1) / 2,
        "counter %lld, want %lld", nvshmem_longlong_atomic_fetch(counter, 0),
        n * base + (long long)n * (n + 1) / 2);
  CHECK(nvshmem_uint64_atomic_fetch(mask, me) == (((uint64_t)1 << n) - 1), "mask %llx",
        (unsigned long long)nvshmem_uint64_atomic_fetch(mask, me));
  CHECK(nvshmem_int_atomic_fetch(owner, me) == 1, "inc gave %d",
        nvshmem_int_atomic_fetch(owner, me));
  nvshmem_barrier_all();
  /* Only the PE whose compare sees 1 wins PE 0's owner word; every PE tries with its own number. */
  const int seen = nvshmem_int_atomic_compare_swap(owner, 1, 100 + me, 0);
  nvshmem_barrier_all();
  const int winner = nvshmem_int_atomic_fetch(owner, 0) - 100;
  CHECK(winner >= 0 && winner < n, "compare_swap left %d", winner + 100);
  CHECK((seen == 1) == (me == winner), "compare_swap saw %d on PE %d (winner %d)", seen, me,
        winner);
  nvshmem_double_atomic_set(dv, 0.5 * (me + 1), (me + 1) % n);
  nvshmem_barrier_all();
  CHECK(nvshmem_double_atomic_fetch(dv, me) == 0.5 * (from + 1), "double set/fetch %g",
        nvshmem_double_atomic_fetch(dv, me));

  /* Put-with-signal around the ring; the receiver waits on the signal, then checks the data;
   * then a signal_op add from every PE, waited for with wait_until and seen by test. */
  uint64_t* sig = (uint64_t*)nvshmem_calloc(2, sizeof(uint64_t));
  long* ring = (long*)nvshmem_calloc(count, sizeof(long));
  nvshmem_putmem_signal(ring, mine, count * sizeof(long), sig, s | 1, NVSHMEM_SIGNAL_SET,
                        (me + 1) % n);
  CHECK(nvshmem_signal_wait_until(sig, NVSHMEM_CMP_EQ, s | 1) == (s | 1), "signal value");
  nvshmem_long_get(got, ring, count, me);
  for (size_t i = 0; i < count; ++i) {
    const long want = (long)(s % 9973) * 1000003L + from * 7919L + (long)i;
    if (got[i] != want) {
      CHECK(0, "put_signal data [%zu] = %ld, want %ld", i, got[i], want);
      break;
    }
  }
  for (int pe = 0; pe < n; ++pe)
    nvshmemx_signal_op(sig + 1, (uint64_t)me + 1, NVSHMEM_SIGNAL_ADD, pe);
  nvshmem_uint64_wait_until(sig + 1, NVSHMEM_CMP_GE, (uint64_t)n * (n + 1) / 2);
  CHECK(nvshmem_uint64_test(sig + 1, NVSHMEM_CMP_EQ, (uint64_t)n * (n + 1) / 2) == 1, "test EQ");
  CHECK(nvshmem_uint64_test(sig + 1, NVSHMEM_CMP_GT, (uint64_t)n * (n + 1) / 2) == 0, "test GT");
  CHECK(nvshmem_signal_fetch(sig + 1) == (uint64_t)n * (n + 1) / 2, "signal_fetch");
  nvshmem_barrier_all();
  nvshmem_free(ring);
  nvshmem_free(sig);
  nvshmem_free(dv);
  nvshmem_free(owner);
  nvshmem_free(mask);
  nvshmem_free(counter);

  /* More RMA forms to the next PE: a strided iput into the even slots, a typed put-with-signal,
   * a sized non-blocking put; read back with a strided iget, a sized get and a _nbi get. */
  {
    const int next = (me + 1) % n;
    int* slots = (int*)nvshmem_calloc(2 * count, sizeof(int));
    long* signalled = (long*)nvshmem_malloc(count * sizeof(long));
    long* sized = (long*)nvshmem_malloc(count * sizeof(long));
    uint64_t* word = (uint64_t*)nvshmem_calloc(1, sizeof(uint64_t));
    int* ints = (int*)malloc(2 * count * sizeof(int));
    for (size_t i = 0; i < count; ++i) ints[i] = (int)(s % 7919) * 31 + me * 100003 + (int)i;
    nvshmem_int_iput(slots, ints, 2, 1, count, next);
    nvshmem_long_put_signal(signalled, mine, count, word, (uint64_t)me + 1, NVSHMEM_SIGNAL_SET,
                            next);
    nvshmem_put64_nbi(sized, mine, count, next);
    nvshmem_quiet();
    CHECK(nvshmem_signal_wait_until(word, NVSHMEM_CMP_EQ, (uint64_t)from + 1) == (uint64_t)from + 1,
          "put_signal's signal");
    nvshmem_barrier_all();
    nvshmem_int_iget(ints, slots, 1, 2, count, me); /* the even slots, packed */
    for (size_t i = 0; i < count; ++i)
      if (ints[i] != (int)(s % 7919) * 31 + from * 100003 + (int)i) {
        CHECK(0, "iput/iget: [%zu] = %d", i, ints[i]);
        break;
      }
    nvshmem_get64(got, signalled, count, me);
    for (int t = 0; t < 2; ++t) {
      if (t == 1) {
        memset(got, 0, count * sizeof(long));
        nvshmem_getmem_nbi(got, sized, count * sizeof(long), me);
        nvshmem_quiet();
      }
      for (size_t i = 0; i < count; ++i)
        if (got[i] != (long)(s % 9973) * 1000003L + from * 7919L + (long)i) {
          CHECK(0, "%s: [%zu] = %ld", t ? "put64_nbi" : "long_put_signal", i, got[i]);
          break;
        }
    }
    nvshmem_barrier_all();
    free(ints);
    nvshmem_free(word);
    nvshmem_free(sized);
    nvshmem_free(signalled);
    nvshmem_free(slots);
  }

  /* Waits over arrays: every PE sets its slot (me + 1) in every PE's array; all, any and some,
   * with one comparison value and with a vector of them, against what is known to be set. */
  {
    long* slots = (long*)nvshmem_calloc((size_t)n, sizeof(long));
    long* want = (long*)malloc((size_t)n * sizeof(long));
    size_t* found = (size_t*)malloc((size_t)n * sizeof(size_t));
    int* status = (int*)calloc((size_t)n, sizeof(int));
    for (int pe = 0; pe < n; ++pe) nvshmem_long_p(slots + me, me + 1, pe);
    nvshmem_quiet();
    nvshmem_long_wait_until_all(slots, (size_t)n, NULL, NVSHMEM_CMP_GT, 0);
    for (int k = 0; k < n; ++k) want[k] = k + 1;
    nvshmem_long_wait_until_all_vector(slots, (size_t)n, NULL, NVSHMEM_CMP_EQ, want);
    CHECK(nvshmem_long_test_all(slots, (size_t)n, NULL, NVSHMEM_CMP_GE, 1) == 1, "test_all");
    CHECK(nvshmem_long_test_any(slots, (size_t)n, NULL, NVSHMEM_CMP_GT, n) == SIZE_MAX,
          "test_any found a slot above %d", n);
    CHECK(nvshmem_long_wait_until_any(slots, (size_t)n, NULL, NVSHMEM_CMP_EQ, n) == (size_t)n - 1,
          "wait_until_any");
    CHECK(nvshmem_long_wait_until_some(slots, (size_t)n, found, NULL, NVSHMEM_CMP_LE, 2) ==
              (size_t)(n < 2 ? n : 2),
          "wait_until_some");
    status[0] = 1; /* slot 0 excluded */
    CHECK(
        nvshmem_long_test_some(slots, (size_t)n, found, status, NVSHMEM_CMP_GE, 1) == (size_t)n - 1,
        "test_some with status");
    want[n - 1] = -1; /* the last no longer equal */
    CHECK(nvshmem_long_test_all_vector(slots, (size_t)n, NULL, NVSHMEM_CMP_EQ, want) == 0,
          "test_all_vector");
    const size_t any = nvshmem_long_test_any_vector(slots, (size_t)n, status, NVSHMEM_CMP_EQ, want);
    CHECK(n > 2 ? any >= 1 && any <= (size_t)n - 2 : any == SIZE_MAX, "test_any_vector: %zu", any);
    CHECK(nvshmem_long_test_some_vector(slots, (size_t)n, found, NULL, NVSHMEM_CMP_EQ, want) ==
              (size_t)n - 1,
          "test_some_vector");
    nvshmem_barrier_all();
    free(status);
    free(found);
    free(want);
    nvshmem_free(slots);
  }

  /* Teams: the even PEs by a strided split, a grid of two columns by a 2-D split; ranks, sizes
   * and translations against the world, then both destroyed. */
  int level = -1;
  nvshmem_query_thread(&level);
  CHECK(level == NVSHMEM_THREAD_MULTIPLE || level == NVSHMEM_THREAD_SERIALIZED, "thread level %d",
        level);
  nvshmem_team_t even = NVSHMEM_TEAM_INVALID;
  CHECK(nvshmem_team_split_strided(NVSHMEM_TEAM_WORLD, 0, 2, (n + 1) / 2, NULL, 0, &even) == 0,
        "split_strided failed");
  if (me % 2 == 0) {
    CHECK(even != NVSHMEM_TEAM_INVALID, "even team invalid on PE %d", me);
    CHECK(nvshmem_team_my_pe(even) == me / 2, "even rank %d", nvshmem_team_my_pe(even));
    CHECK(nvshmem_team_n_pes(even) == (n + 1) / 2, "even size %d", nvshmem_team_n_pes(even));
    CHECK(nvshmem_team_translate_pe(even, me / 2, NVSHMEM_TEAM_WORLD) == me, "even -> world");
  } else {
    CHECK(even == NVSHMEM_TEAM_INVALID, "odd PE %d got team %d", me, even);
    CHECK(nvshmem_team_my_pe(even) == -1, "odd PE's rank in the invalid team");
  }
  nvshmem_team_t xt = NVSHMEM_TEAM_INVALID, yt = NVSHMEM_TEAM_INVALID;
  CHECK(nvshmem_team_split_2d(NVSHMEM_TEAM_WORLD, 2, NULL, 0, &xt, NULL, 0, &yt) == 0,
        "split_2d failed");
  const int row_size = n - (me / 2) * 2 < 2 ? n - (me / 2) * 2 : 2;
  CHECK(nvshmem_team_my_pe(xt) == me % 2 && nvshmem_team_n_pes(xt) == row_size,
        "x team: rank %d of %d", nvshmem_team_my_pe(xt), nvshmem_team_n_pes(xt));
  CHECK(nvshmem_team_my_pe(yt) == me / 2 && nvshmem_team_n_pes(yt) == (n - me % 2 + 1) / 2,
        "y team: rank %d of %d", nvshmem_team_my_pe(yt), nvshmem_team_n_pes(yt));
  CHECK(nvshmem_team_translate_pe(NVSHMEM_TEAM_WORLD, me, yt) == me / 2, "world -> y");
  CHECK(nvshmem_team_translate_pe(yt, 0, NVSHMEM_TEAM_WORLD) == me % 2, "y -> world");
  nvshmem_team_destroy(yt);
  nvshmem_team_destroy(xt);
  nvshmem_team_destroy(even);
  nvshmem_barrier_all();

  /* realloc keeps the contents; no multicast address; the version; registering a buffer. */
  {
    long* grown = (long*)nvshmem_malloc(4 * sizeof(long));
    const long four[4] = {(long)s, me, -7, 42};
    nvshmem_long_put(grown, four, 4, me);
    nvshmem_quiet();
    grown = (long*)nvshmem_realloc(grown, 100000 * sizeof(long));
    long back[4] = {0};
    nvshmem_long_get(back, grown, 4, me);
    CHECK(grown != NULL && memcmp(back, four, sizeof(four)) == 0, "realloc lost the contents");
    CHECK(nvshmemx_mc_ptr(NVSHMEM_TEAM_WORLD, grown) == NULL, "a multicast address");
    int v[3] = {0, 0, -1};
    nvshmemx_vendor_get_version_info(&v[0], &v[1], &v[2]);
    CHECK(v[0] == NVSHMEM_MAJOR_VERSION && v[1] == NVSHMEM_MINOR_VERSION && v[2] >= 0, "version");
    CHECK(
        nvshmemx_buffer_register(back, sizeof(back)) == 0 && nvshmemx_buffer_unregister(back) == 0,
        "buffer registration");
    /* Host memory cannot join the symmetric heap (on the CPU backend nothing can): NULL on every
     * PE, the reason on stderr, and the job goes on. */
    CHECK(nvshmemx_buffer_register_symmetric(back, sizeof(back), 0) == NULL,
          "host memory was registered as symmetric");
    nvshmem_free(grown);
  }

  /* A size no heap holds: NULL, and the job goes on. */
  void* huge = nvshmem_malloc((size_t)1 << 62);
  CHECK(huge == NULL, "a 2^62-byte malloc returned %p", huge);
  free(got);
  free(mine);
  nvshmem_free(block);
  nvshmem_free(shift);
  nvshmem_free(seed);
  nvshmem_finalize();
  CHECK(nvshmemx_init_status() == NVSHMEM_STATUS_NOT_INITIALIZED, "status after finalize");
  if (failures == 0) printf("[pe %d] nvshmem host program: all passed (%d PEs)\n", me, n);
  return failures == 0 ? 0 : 1;
}
