// nvshmemx_collective_launch and its query: a cooperative launch of a grid whose blocks may wait
// for each other, after checking that it fits on the GPU at once (symmetra/collective_launch.cuh
// does the same for C++ kernels).
#include <cstdio>
#include <string>

#include "bindings/nvshmem/state.hpp"

#if SYMMETRA_HAVE_CUDA
#include <cuda_runtime_api.h>

namespace symmetra::nvshmem {
namespace {

// The most blocks of `func` that fit at once on the current device, or -1 (with the reason on
// stderr).
int resident_blocks(const char* op, const void* func, dim3 block, size_t smem) {
  int dev = 0, sms = 0, per_sm = 0;
  cudaError_t rc = cudaGetDevice(&dev);
  if (rc == cudaSuccess) rc = cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, dev);
  if (rc == cudaSuccess)
    rc = cudaOccupancyMaxActiveBlocksPerMultiprocessor(
        &per_sm, func, static_cast<int>(block.x * block.y * block.z), smem);
  if (rc != cudaSuccess) {
    cudaGetLastError();
    std::fprintf(stderr, "[pe %d] %s: cannot query the kernel's occupancy: %s\n",
                 g_rt ? g_rt->my_pe() : -1, op, cudaGetErrorString(rc));
    return -1;
  }
  return per_sm * sms;
}

int gpu_backend(const char* op) {
  if (rt(op).on_gpu()) return NVSHMEMX_SUCCESS;
  std::fprintf(stderr, "[pe %d] %s: needs the GPU backend; this PE runs on the CPU backend\n",
               rt(op).my_pe(), op);
  return NVSHMEMX_ERROR_NOT_SUPPORTED;
}

}  // namespace
}  // namespace symmetra::nvshmem

namespace nv = symmetra::nvshmem;

extern "C" {

int nvshmemx_collective_launch(const void* func, dim3 grid, dim3 block, void** args, size_t smem,
                               cudaStream_t stream) {
  constexpr const char* op = "nvshmemx_collective_launch";
  if (const int rc = nv::gpu_backend(op); rc != NVSHMEMX_SUCCESS) return rc;
  const int fit = nv::resident_blocks(op, func, block, smem);
  if (fit < 0) return NVSHMEMX_ERROR_COLLECTIVE_LAUNCH_FAILED;
  const long blocks = static_cast<long>(grid.x) * grid.y * grid.z;
  if (blocks > fit) {
    std::fprintf(stderr,
                 "[pe %d] %s: a grid of %ld blocks of %u threads (%zu B shared memory) does not "
                 "fit on the GPU at once: at most %d such blocks can be resident, and blocks that "
                 "wait for each other would deadlock\n",
                 nv::rt(op).my_pe(), op, blocks, block.x * block.y * block.z, smem, fit);
    return NVSHMEMX_ERROR_COLLECTIVE_LAUNCH_FAILED;
  }
  const cudaError_t rc = cudaLaunchCooperativeKernel(func, grid, block, args, smem, stream);
  if (rc != cudaSuccess) {
    cudaGetLastError();
    std::fprintf(stderr, "[pe %d] %s: %s\n", nv::rt(op).my_pe(), op, cudaGetErrorString(rc));
    return NVSHMEMX_ERROR_COLLECTIVE_LAUNCH_FAILED;
  }
  return NVSHMEMX_SUCCESS;
}

int nvshmemx_collective_launch_query_gridsize(const void* func, dim3 block, void**, size_t smem,
                                              int* gridsize) {
  constexpr const char* op = "nvshmemx_collective_launch_query_gridsize";
  if (gridsize == nullptr) return NVSHMEMX_ERROR_INVALID_VALUE;
  if (const int rc = nv::gpu_backend(op); rc != NVSHMEMX_SUCCESS) return rc;
  const int fit = nv::resident_blocks(op, func, block, smem);
  if (fit < 0) return NVSHMEMX_ERROR_COLLECTIVE_LAUNCH_FAILED;
  *gridsize = fit;
  return NVSHMEMX_SUCCESS;
}

}  // extern "C"
#endif  // SYMMETRA_HAVE_CUDA
