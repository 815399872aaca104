/* shmem_global_exit(status) ends every PE and the job with that status: the last PE calls it
 * while the others wait in a barrier that can never complete. The runner expects status 7. */
#include "check.h"

int main(void) {
  shmem_init();
  const int me = shmem_my_pe(), n = shmem_n_pes();
  shmem_barrier_all();
  if (me == n - 1) {
    printf("PE %d calls shmem_global_exit(7)\n", me);
    shmem_global_exit(7);
  }
  shmem_barrier_all(); /* PE n-1 never arrives */
  printf("FAIL: PE %d passed a barrier PE %d never reached\n", me, n - 1);
  shmem_finalize();
  return 0;
}
