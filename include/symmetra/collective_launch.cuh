// Launching kernels whose blocks synchronize with each other (NVSHMEM's collective launch).
//
// A kernel in which blocks wait for other blocks (a grid-wide barrier, or device-API waits on
// words other blocks write) deadlocks unless every block is resident at once. collective_launch
// checks that the grid fits on the device, given the kernel's registers and shared memory, and
// says so clearly when it does not, then launches cooperatively. Needs nvcc (.cuh).
//
// Threads: any host thread with the PE's device current. Ordering: as a launch on `stream`.
// Note: kernels of other PEs on the same GPU occupy SMs too; the check counts the whole device.
#pragma once

#include <cuda_runtime.h>

#include <string>
#include <tuple>
#include <type_traits>

#include "symmetra/error.hpp"

namespace symmetra {

// The most blocks of `kernel` with `threads` threads and `smem` bytes of dynamic shared memory
// that can be resident on the current device at once.
template <class... Params>
int max_resident_blocks(void (*kernel)(Params...), int threads, std::size_t smem) {
  int dev = 0, sms = 0, per_sm = 0;
  cudaError_t rc = cudaGetDevice(&dev);
  if (rc == cudaSuccess) rc = cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, dev);
  if (rc == cudaSuccess)
    rc = cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, kernel, threads, smem);
  if (rc != cudaSuccess)
    throw Error(std::string("collective_launch: cannot query occupancy: ") +
                cudaGetErrorString(rc));
  return per_sm * sms;
}

// Launches `kernel<<<grid, block, smem, stream>>>(args...)` as a cooperative launch after
// checking that every block can be resident at once; throws symmetra::Error otherwise.
template <class... Params, class... Args>
void collective_launch(void (*kernel)(Params...), dim3 grid, dim3 block, std::size_t smem,
                       cudaStream_t stream, Args... args) {
  static_assert(sizeof...(Params) == sizeof...(Args), "collective_launch: argument count");
  const int threads = static_cast<int>(block.x * block.y * block.z);
  const long blocks = static_cast<long>(grid.x) * grid.y * grid.z;
  const int fit = max_resident_blocks(kernel, threads, smem);
  if (blocks > fit)
    throw Error("collective_launch: a grid of " + std::to_string(blocks) + " blocks of " +
                std::to_string(threads) + " threads (" + std::to_string(smem) +
                " B shared memory) does not fit on the GPU at once: at most " +
                std::to_string(fit) +
                " such blocks can be resident, and blocks that wait for each other would deadlock; "
                "launch at most " +
                std::to_string(fit) +
                " blocks, or fewer threads or less shared "
                "memory per block");
  // The launch reads each argument as the kernel's exact parameter type.
  std::tuple<std::decay_t<Params>...> converted(static_cast<std::decay_t<Params>>(args)...);
  void* argv[sizeof...(Params) > 0 ? sizeof...(Params) : 1] = {};
  std::apply(
      [&](auto&... p) {
        std::size_t i = 0;
        ((argv[i++] = static_cast<void*>(&p)), ...);
      },
      converted);
  const cudaError_t rc = cudaLaunchCooperativeKernel(reinterpret_cast<const void*>(kernel), grid,
                                                     block, argv, smem, stream);
  if (rc != cudaSuccess) throw Error(std::string("collective_launch: ") + cudaGetErrorString(rc));
}

}  // namespace symmetra
