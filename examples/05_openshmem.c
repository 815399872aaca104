/* 05: an OpenSHMEM 1.5 program in C, built with symcc and run with symrun, unchanged from what
 * it would be on any OpenSHMEM library. Each PE adds its number into PE 0's counter with an
 * atomic, and PE 0 checks the total.
 * Build: symcc 05_openshmem.c -o 05_openshmem     Run: symrun -n 4 ./05_openshmem */
#include <shmem.h>
#include <stdio.h>

int main(void) {
  static long total = 0; /* global: symmetric under OpenSHMEM's rules */
  shmem_init();
  const int me = shmem_my_pe(), n = shmem_n_pes();
  shmem_long_atomic_add(&total, me + 1, 0);
  shmem_barrier_all();
  int ok = 1;
  if (me == 0) {
    const long want = (long)n * (n + 1) / 2;
    ok = total == want;
    printf("PE 0: total %ld, want %ld: %s\n", total, want, ok ? "ok" : "WRONG");
  }
  shmem_finalize();
  return ok ? 0 : 1;
}
