// The NVSHMEM tutorial's first program, unchanged (issue 45's acceptance test): every PE must
// print "PE i/n received (i-1+n)%n". Built with and without -rdc=true; tools/gpu-check runs it.
#include <cuda.h>
#include <nvshmem.h>
#include <nvshmemx.h>
#include <stdio.h>
__global__ void simple_shift(int* dst) {
  int mype = nvshmem_my_pe();
  int npes = nvshmem_n_pes();
  int peer = (mype + 1) % npes;
  nvshmem_int_p(dst, mype, peer);
}
int main(void) {
  nvshmem_init();
  int mype_node = nvshmem_team_my_pe(NVSHMEMX_TEAM_NODE);
  cudaSetDevice(mype_node);
  cudaStream_t stream;
  cudaStreamCreate(&stream);
  int* dst = (int*)nvshmem_malloc(sizeof(int));
  simple_shift<<<1, 1, 0, stream>>>(dst);
  nvshmemx_barrier_all_on_stream(stream);
  int msg;
  cudaMemcpyAsync(&msg, dst, sizeof(int), cudaMemcpyDeviceToHost, stream);
  cudaStreamSynchronize(stream);
  printf("PE %d/%d received %d\n", nvshmem_my_pe(), nvshmem_n_pes(), msg);
  nvshmem_free(dst);
  nvshmem_finalize();
  return 0;
}
