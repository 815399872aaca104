/* nvshmemx_init_attr with a unique id, as programs without a launcher use it (DeepEP, vLLM,
 * TensorRT-LLM pass the id through their own store): this process makes the id, starts the
 * other PEs with fork (the "store" is the inherited memory), and every PE joins as its rank.
 * Each PE then checks its number, a ring of puts and a sum over the job.
 *   init_uid N */
#include <nvshmem.h>
#include <nvshmemx.h>
#include <stdlib.h>
#include <sys/wait.h>

#include "test_util.h"

int main(int argc, char** argv) {
  const int n = argc > 1 ? atoi(argv[1]) : 2;
  nvshmemx_uniqueid_t id = NVSHMEMX_UNIQUEID_INITIALIZER;
  nvshmemx_init_attr_t attr = NVSHMEMX_INIT_ATTR_INITIALIZER;
  /* Bad input first: a rank outside the job is refused with a status, not a crash. */
  if (nvshmemx_set_attr_uniqueid_args(n, n, &id, &attr) != 0 ||
      nvshmemx_init_attr(NVSHMEMX_INIT_WITH_UNIQUEID, &attr) != NVSHMEMX_ERROR_INVALID_VALUE ||
      nvshmemx_init_attr(NVSHMEMX_INIT_WITH_UNIQUEID, NULL) != NVSHMEMX_ERROR_INVALID_VALUE) {
    fprintf(stderr, "FAIL: a bad rank or a missing id was not refused\n");
    return 1;
  }
  if (nvshmemx_get_uniqueid(&id) != 0) return 1;
  int rank = 0;
  for (int r = 1; r < n; ++r)
    if (fork() == 0) {
      rank = r;
      break;
    }
  if (nvshmemx_set_attr_uniqueid_args(rank, n, &id, &attr) != 0 ||
      nvshmemx_init_attr(NVSHMEMX_INIT_WITH_UNIQUEID, &attr) != 0) {
    fprintf(stderr, "FAIL: rank %d could not join\n", rank);
    return 1;
  }
  const int me = nvshmem_my_pe();
  CHECK(me == rank && nvshmem_n_pes() == n, "PE %d of %d, want %d of %d", me, nvshmem_n_pes(), rank,
        n);
  int* slot = (int*)nvshmem_calloc(2, sizeof(int));
  nvshmem_int_p(slot, me + 100, (me + 1) % n);
  nvshmem_barrier_all();
  CHECK(nvshmem_int_g(slot, me) == (me + n - 1) % n + 100, "ring: got %d", nvshmem_int_g(slot, me));
  nvshmem_int_p(slot + 1, me, me);
  nvshmem_barrier_all();
  CHECK(nvshmem_int_sum_reduce(NVSHMEM_TEAM_WORLD, slot, slot + 1, 1) == 0, "reduce rc");
  CHECK(nvshmem_int_g(slot, me) == n * (n - 1) / 2, "sum %d", nvshmem_int_g(slot, me));
  nvshmem_free(slot);
  nvshmem_finalize();
  if (failures == 0) printf("[pe %d] init with a unique id: all passed (%d PEs)\n", me, n);
  if (rank == 0) {
    int status = 0, bad = 0;
    while (wait(&status) > 0) bad += !(WIFEXITED(status) && WEXITSTATUS(status) == 0);
    if (bad) fprintf(stderr, "FAIL: %d other PEs failed\n", bad);
    failures += bad;
  }
  return failures == 0 ? 0 : 1;
}
