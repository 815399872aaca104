/* Global and static variables are symmetric data objects (OpenSHMEM 1.5 section 3): puts, gets,
 * atomics, waits and collectives on initialized data, on bss and on a function's static local,
 * with every element checked; initial values survive shmem_init. */
#include <string.h>

#include "check.h"

#define N 3001

long initialized[4] = {11, 22, 33, 44}; /* .data */
uint64_t bss_block[N + 2];              /* .bss */
int counter;                            /* .bss, target of atomics */
uint64_t flag;
double reduced[64];
double contribution[64];
long psync[SHMEM_BCAST_SYNC_SIZE];

static int* local_static(void) {
  static int x[8];
  return x;
}

int main(void) {
  shmem_init();
  const int me = shmem_my_pe(), n = shmem_n_pes();
  const int next = (me + 1) % n, prev = (me + n - 1) % n;
  if (on_gpu()) {
    /* The GPU backend's symmetric heap is device memory: static data stays private to the host,
     * and a put to it stops the job with a message saying so (tools/gpu-check expects it). */
    CHECK(!shmem_addr_accessible(bss_block, next), "static data accessible on the GPU backend");
    shmem_long_p(&initialized[0], 1, next);
    CHECK(0, "a put to static data on the GPU backend did not stop the job");
  }
  CHECK(initialized[0] == 11 && initialized[3] == 44, "initial values lost: %ld %ld",
        initialized[0], initialized[3]);
  CHECK(shmem_addr_accessible(bss_block, next) && shmem_addr_accessible(&counter, next),
        "static data not accessible");
  CHECK((shmem_ptr(bss_block, next) != NULL) ==
            (shmem_team_translate_pe(SHMEM_TEAM_WORLD, next, SHMEM_TEAM_SHARED) >= 0),
        "shmem_ptr of static data");
  const uint64_t seed = agreed_seed();

  /* put into the next PE's bss, poisoned guards around it */
  bss_block[0] = bss_block[N + 1] = 7;
  uint64_t src[N];
  for (int i = 0; i < N; ++i) src[i] = val(seed, me, 1, (uint64_t)i);
  shmem_barrier_all();
  shmem_uint64_put(bss_block + 1, src, N, next);
  shmem_barrier_all();
  for (int i = 0; i < N; ++i)
    CHECK(bss_block[i + 1] == val(seed, prev, 1, (uint64_t)i), "bss element %d", i);
  CHECK(bss_block[0] == 7 && bss_block[N + 1] == 7, "put wrote outside the block");
  /* get it back from the next PE: what I sent */
  uint64_t back[N];
  shmem_getmem(back, bss_block + 1, sizeof(back), next);
  CHECK(memcmp(back, src, sizeof(back)) == 0, "get from static data");
  /* initialized data: p and g */
  shmem_long_p(&initialized[1], 100 + me, next);
  shmem_barrier_all();
  CHECK(initialized[1] == 100 + prev, "p to initialized data: %ld", initialized[1]);
  CHECK(shmem_long_g(&initialized[2], next) == 33, "g of untouched initialized data");
  /* a function's static local */
  int* x = local_static();
  shmem_int_p(&x[3], me + 1, next);
  shmem_barrier_all();
  CHECK(x[3] == prev + 1, "static local: %d", x[3]);
  /* atomics: every PE adds to every PE's counter */
  for (int pe = 0; pe < n; ++pe) shmem_int_atomic_add(&counter, me + 1, pe);
  shmem_barrier_all();
  CHECK(counter == n * (n + 1) / 2, "atomic adds on a global: %d", counter);
  CHECK(shmem_int_atomic_fetch(&counter, next) == n * (n + 1) / 2, "atomic fetch on a global");
  /* signal and wait on a global */
  shmem_uint64_put_signal(bss_block, src, 1, &flag, 5, SHMEM_SIGNAL_SET, next);
  shmem_uint64_wait_until(&flag, SHMEM_CMP_EQ, 5);
  CHECK(bss_block[0] == val(seed, prev, 1, 0), "put_signal data into static data");
  shmem_barrier_all();
  /* collectives into and out of static data */
  for (int i = 0; i < 64; ++i)
    contribution[i] = (double)(val(seed, me, 2, (uint64_t)i) % 4096) / 4.0;
  shmem_barrier_all();
  CHECK(shmem_double_sum_reduce(SHMEM_TEAM_WORLD, reduced, contribution, 64) == 0,
        "sum_reduce on globals");
  for (int i = 0; i < 64; ++i) {
    double s = 0;
    for (int r = 0; r < n; ++r) s += (double)(val(seed, r, 2, (uint64_t)i) % 4096) / 4.0;
    CHECK(reduced[i] == s, "reduce element %d: %f want %f", i, reduced[i], s);
  }
  for (int i = 0; i < SHMEM_BCAST_SYNC_SIZE; ++i) psync[i] = SHMEM_SYNC_VALUE;
  shmem_barrier_all();
  shmem_broadcast64(reduced, contribution, 64, 0, 0, 0, n, psync);
  if (me != 0)
    for (int i = 0; i < 64; ++i)
      CHECK(reduced[i] == (double)(val(seed, 0, 2, (uint64_t)i) % 4096) / 4.0, "broadcast64 %d", i);
  shmem_barrier_all();
  if (me == 0) printf("PASS static %d PEs\n", n);
  shmem_finalize();
  return 0;
}
