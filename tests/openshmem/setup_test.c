/* Setup, query and memory management (OpenSHMEM 1.5 sections 9.1-9.3), and symcc linking libm
 * as oshcc does (powl, sqrt). */
#include <math.h>
#include <string.h>

#include <shmemx.h>

#include "check.h"

int main(void) {
  int provided = -1;
  CHECK(shmem_init_thread(SHMEM_THREAD_MULTIPLE, &provided) == 0, "init_thread failed");
  /* The GPU backend serves one thread at a time (docs/openshmem.md). */
  const int level = on_gpu() ? SHMEM_THREAD_SERIALIZED : SHMEM_THREAD_MULTIPLE;
  CHECK(provided == level, "provided %d", provided);
  shmem_init(); /* nested init is allowed and counted */
  const int me = shmem_my_pe(), n = shmem_n_pes();
  CHECK(me >= 0 && me < n, "my_pe %d of %d", me, n);
  CHECK(_my_pe() == me && _num_pes() == n, "deprecated query names disagree");
  int q = -1;
  shmem_query_thread(&q);
  CHECK(q == level, "query_thread %d", q);
  int major = 0, minor = 0;
  shmem_info_get_version(&major, &minor);
  CHECK(major == 1 && minor == 5, "version %d.%d", major, minor);
  char name[SHMEM_MAX_NAME_LEN];
  shmem_info_get_name(name);
  CHECK(strcmp(name, "Symmetra") == 0, "name %s", name);
  const uint64_t seed = agreed_seed();
  volatile long double base = (long double)(seed % 7 + 2);
  CHECK(powl(base, 3.0L) == base * base * base, "powl");
  volatile double sq = (double)(seed % 1000 + 4);
  CHECK(fabs(sqrt(sq) * sqrt(sq) - sq) < 1e-9 * sq, "sqrt");
  /* Symmetra's extensions (shmemx.h) */
  const double t0 = shmemx_wtime();
  CHECK(shmemx_runtime() != NULL, "shmemx_runtime is NULL after shmem_init");
  shmem_barrier_all();
  CHECK(shmemx_wtime() >= t0 && t0 > 0, "shmemx_wtime not monotonic: %f then %f", t0,
        shmemx_wtime());

  /* malloc: symmetric, reachable, distinct */
  size_t bytes = 1000 + (size_t)(seed % 5000);
  uint64_t* a = (uint64_t*)shmem_malloc(bytes * sizeof(uint64_t));
  CHECK(a != NULL, "malloc returned NULL");
  int local = 0;
  for (int pe = 0; pe < n; ++pe) {
    CHECK(shmem_pe_accessible(pe), "PE %d not accessible", pe);
    CHECK(shmem_addr_accessible(a, pe), "heap address not accessible on PE %d", pe);
    CHECK(!shmem_addr_accessible(&local, pe), "a stack address is accessible on PE %d", pe);
    /* Device memory is not for the host's loads and stores: shmem_ptr is NULL there; so it is
     * for PEs outside SHMEM_TEAM_SHARED (other hosts, reached through the transport). */
    const int shared = shmem_team_translate_pe(SHMEM_TEAM_WORLD, pe, SHMEM_TEAM_SHARED) >= 0;
    CHECK((shmem_ptr(a, pe) != NULL) == (!on_gpu() && shared), "shmem_ptr for PE %d", pe);
  }
  if (!on_gpu())
    CHECK(shmem_ptr(a, me) == (void*)a, "shmem_ptr to myself is not the address itself");
  CHECK(!shmem_pe_accessible(n) && !shmem_pe_accessible(-1), "out-of-range PEs accessible");
  uint64_t* la = (uint64_t*)malloc(bytes * sizeof(uint64_t));
  for (size_t i = 0; i < bytes; ++i) la[i] = val(seed, me, 0, i);
  sym_write(a, la, bytes * sizeof(uint64_t));
  shmem_barrier_all();
  /* load through shmem_ptr from the next PE (host memory), else a get */
  const int next = (me + 1) % n;
  const uint64_t* peer = (const uint64_t*)shmem_ptr(a, next);
  if (peer == NULL) {
    shmem_getmem(la, a, bytes * sizeof(uint64_t), next);
    peer = la;
  }
  for (size_t i = 0; i < bytes; ++i)
    CHECK(peer[i] == val(seed, next, 0, i), "element %zu of the next PE", i);
  free(la);
  shmem_barrier_all();

  /* calloc zeroes; align aligns; realloc keeps contents */
  uint32_t* z = (uint32_t*)shmem_calloc(777, sizeof(uint32_t));
  uint32_t lz[777];
  sym_read(lz, z, sizeof(lz));
  for (int i = 0; i < 777; ++i) CHECK(lz[i] == 0, "calloc element %d is %u", i, lz[i]);
  for (size_t al = 16; al <= 4096; al *= 4) {
    void* p = shmem_align(al, 100);
    CHECK(((uintptr_t)p % al) == 0, "shmem_align(%zu) gave %p", al, p);
    shmem_free(p);
  }
  for (int i = 0; i < 777; ++i) lz[i] = (uint32_t)val(seed, me, 1, (uint64_t)i);
  sym_write(z, lz, sizeof(lz));
  z = (uint32_t*)shmem_realloc(z, 5000 * sizeof(uint32_t));
  sym_read(lz, z, sizeof(lz));
  for (int i = 0; i < 777; ++i)
    CHECK(lz[i] == (uint32_t)val(seed, me, 1, (uint64_t)i), "realloc lost element %d", i);
  void* h = shmem_malloc_with_hints(64, SHMEM_MALLOC_ATOMICS_REMOTE);
  CHECK(h != NULL, "malloc_with_hints");
  shmem_free(h);
  void* old = shmalloc(32);
  CHECK(old != NULL && shmem_addr_accessible(old, next), "shmalloc");
  shfree(old);
  shmem_free(z);
  shmem_free(a);
  CHECK(shmem_malloc(0) == NULL, "malloc(0) is not NULL");
  shmem_barrier_all();
  shmem_finalize(); /* the nested init's */
  if (me == 0) printf("PASS setup %d PEs\n", n);
  shmem_finalize();
  return 0;
}
