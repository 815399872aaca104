/* nvshmem_global_exit ends the whole job with its status: PE 1 calls it while every other PE
 * waits in a barrier that PE 1 never reaches (bounded by SYMMETRA_TIMEOUT_S, which is far
 * longer than the test allows). The launcher must return 7 (global_exit_test.sh checks). */
#include <nvshmem.h>
#include <stdio.h>

int main(void) {
  nvshmem_init();
  if (nvshmem_my_pe() == 1) nvshmem_global_exit(7);
  nvshmem_barrier_all();
  printf("[pe %d] FAIL: the barrier returned\n", nvshmem_my_pe());
  nvshmem_finalize();
  return 1;
}
