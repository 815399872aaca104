/* nvshmemx_init_attr with an MPI communicator, as MPI programs use it: the world's processes
 * split into the even and the odd ranks, and each half joins a job of its own through its
 * communicator (as TensorRT-LLM does for a group). Each PE checks that its number and the job's
 * size are its communicator's, and a sum over its job.  mpirun -n N init_mpi */
#include <mpi.h>
#include <nvshmem.h>
#include <nvshmemx.h>

#include "test_util.h"

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int world_rank = 0, rank = 0, size = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &world_rank);
  MPI_Comm half;
  MPI_Comm_split(MPI_COMM_WORLD, world_rank % 2, world_rank, &half);
  MPI_Comm_rank(half, &rank);
  MPI_Comm_size(half, &size);
  nvshmemx_init_attr_t attr = NVSHMEMX_INIT_ATTR_INITIALIZER;
  if (nvshmemx_set_attr_mpi_comm_args(&half, &attr) != 0 ||
      nvshmemx_init_attr(NVSHMEMX_INIT_WITH_MPI_COMM, &attr) != 0) {
    fprintf(stderr, "FAIL: world rank %d could not join\n", world_rank);
    MPI_Abort(MPI_COMM_WORLD, 1);
  }
  const int me = nvshmem_my_pe(), n = nvshmem_n_pes();
  CHECK(me == rank && n == size, "PE %d of %d, want %d of %d", me, n, rank, size);
  long* v = (long*)nvshmem_malloc(2 * sizeof(long));
  nvshmem_long_p(v + 1, world_rank, me);
  nvshmem_barrier_all();
  CHECK(nvshmem_long_sum_reduce(NVSHMEM_TEAM_WORLD, v, v + 1, 1) == 0, "reduce rc");
  long want = 0; /* the world ranks of this half */
  for (int r = world_rank % 2; r < 2 * size + world_rank % 2; r += 2) want += r;
  CHECK(nvshmem_long_g(v, me) == want, "sum %ld, want %ld", nvshmem_long_g(v, me), want);
  nvshmem_free(v);
  nvshmem_finalize();
  if (failures == 0)
    printf("[world %d] init with an MPI communicator: all passed (%d PEs)\n", world_rank, n);
  MPI_Comm_free(&half);
  MPI_Finalize();
  return failures == 0 ? 0 : 1;
}
