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

static int failures = 0;
#define CHECK(cond, ...)                                  \
  do {                                                    \
    if (!(cond)) {                                        \
      fprintf(stderr, "[pe %d] FAIL: ", nvshmem_my_pe()); \
      fprintf(stderr, __VA_ARGS__);                       \
      fprintf(stderr, "\n");                              \
      ++failures;                                         \
    }                                                     \
  } while (0)

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
