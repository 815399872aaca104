// The library's side of nvshmemx_collective_launch (inline in nvshmemx.h, so that the occupancy
// query and the launch run in the program's CUDA runtime, where its kernels are registered): the
// backend check and the messages.
#include <cstdio>
#include <string>

#include "bindings/nvshmem/state.hpp"

namespace nv = symmetra::nvshmem;

extern "C" {

int symmetrai_collective_launch_ready(const char* op) {
  if (nv::rt(op).on_gpu()) return NVSHMEMX_SUCCESS;
  std::fprintf(stderr, "[pe %d] %s: needs the GPU backend; this PE runs on the CPU backend\n",
               nv::rt(op).my_pe(), op);
  return NVSHMEMX_ERROR_NOT_SUPPORTED;
}

int symmetrai_collective_launch_failed(const char* op, const char* cuda_error, long blocks,
                                       int threads, size_t shared_mem, int fit) {
  const int pe = nv::rt(op).my_pe();
  if (cuda_error != nullptr)
    std::fprintf(stderr, "[pe %d] %s: %s\n", pe, op, cuda_error);
  else
    std::fprintf(stderr,
                 "[pe %d] %s: a grid of %ld blocks of %d threads (%zu B shared memory) does not "
                 "fit on the GPU at once: at most %d such blocks can be resident, and blocks that "
                 "wait for each other would deadlock\n",
                 pe, op, blocks, threads, shared_mem, fit);
  return NVSHMEMX_ERROR_COLLECTIVE_LAUNCH_FAILED;
}

}  // extern "C"
