// nvshmemx_collective_launch as NVSHMEM programs use it: a grid whose blocks wait for each other
// (a grid-wide arrival count that block 0 waits on), each block putting its slice to the next PE,
// then block 0 running the device barrier and a sum reduction over every PE. The host checks
// the sum against the one computed here; the query's grid size launches, one block more is
// refused with NVSHMEMX_ERROR_COLLECTIVE_LAUNCH_FAILED. Every PE prints "collective launch: all
// passed (N PEs)".
#include <cuda_runtime.h>
#include <nvshmem.h>
#include <nvshmemx.h>

#include <vector>

#include "test_util.h"

__global__ void ring_then_sum(long* ring, const long* mine, long* sum, size_t per_block,
                              unsigned* arrived) {
  const int me = nvshmem_my_pe(), n = nvshmem_n_pes();
  const size_t first = blockIdx.x * per_block;
  nvshmemx_long_put_nbi_block(ring + first, mine + first, per_block, (me + 1) % n);
  __syncthreads();
  if (threadIdx.x == 0) {
    nvshmem_quiet();
    __threadfence();
    atomicAdd(arrived, 1u);
  }
  if (blockIdx.x != 0) return;
  if (threadIdx.x == 0)  // every block of this grid: they must all be resident
    while (atomicAdd(arrived, 0u) < gridDim.x) {
    }
  __syncthreads();
  nvshmemx_barrier_all_block();  // every PE's puts have landed
  nvshmemx_long_sum_reduce_block(NVSHMEM_TEAM_WORLD, sum, ring, per_block * gridDim.x);
}

__global__ void empty_kernel() {}

int main(void) {
  nvshmem_init();
  const int me = nvshmem_my_pe(), n = nvshmem_n_pes();
  const unsigned long long seed = shared_seed();
  const int blocks = 4;
  const size_t per_block = 256 + seed % 64, total = per_block * blocks;
  long* ring = static_cast<long*>(nvshmem_calloc(total, sizeof(long)));
  long* mine = static_cast<long*>(nvshmem_malloc(total * sizeof(long)));
  long* sum = static_cast<long*>(nvshmem_malloc(total * sizeof(long)));
  unsigned* arrived = nullptr;
  cudaMalloc(&arrived, sizeof(unsigned));
  cudaMemset(arrived, 0, sizeof(unsigned));
  auto value = [&](int pe, size_t i) {
    return static_cast<long>((seed % 100003) * 7 + pe * 1000003L + i);
  };
  std::vector<long> host(total);
  for (size_t i = 0; i < total; ++i) host[i] = value(me, i);
  cudaMemcpy(mine, host.data(), total * sizeof(long), cudaMemcpyHostToDevice);
  nvshmem_barrier_all();

  void* args[] = {&ring, &mine, &sum, const_cast<size_t*>(&per_block), &arrived};
  const int rc = nvshmemx_collective_launch(reinterpret_cast<const void*>(ring_then_sum),
                                            dim3(blocks), dim3(128), args, 0, 0);
  CHECK(rc == NVSHMEMX_SUCCESS, "collective launch returned %d", rc);
  CHECK(cudaDeviceSynchronize() == cudaSuccess, "kernel failed");
  cudaMemcpy(host.data(), sum, total * sizeof(long), cudaMemcpyDeviceToHost);
  for (size_t i = 0; i < total; ++i) {
    long want = 0;
    for (int k = 0; k < n; ++k) want += value(k, i);
    if (host[i] != want) {
      CHECK(0, "sum[%zu] = %ld, want %ld", i, host[i], want);
      break;
    }
  }
  int grid = 0;
  CHECK(nvshmemx_collective_launch_query_gridsize(reinterpret_cast<const void*>(empty_kernel),
                                                  dim3(1024), nullptr, 0, &grid) == 0 &&
            grid > 0,
        "query gave %d", grid);
  CHECK(nvshmemx_collective_launch(reinterpret_cast<const void*>(empty_kernel), dim3(grid),
                                   dim3(1024), nullptr, 0, 0) == NVSHMEMX_SUCCESS,
        "a grid of the queried size (%d) was refused", grid);
  CHECK(nvshmemx_collective_launch(reinterpret_cast<const void*>(empty_kernel), dim3(grid + 1),
                                   dim3(1024), nullptr, 0,
                                   0) == NVSHMEMX_ERROR_COLLECTIVE_LAUNCH_FAILED,
        "a grid one block too large was not refused");
  cudaDeviceSynchronize();
  nvshmem_barrier_all();
  if (failures == 0) printf("[pe %d] collective launch: all passed (%d PEs)\n", me, n);
  cudaFree(arrived);
  nvshmem_finalize();
  return failures == 0 ? 0 : 1;
}
