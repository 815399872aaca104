// Cooperation groups: who executes a device-API call together (docs/design.md §1.1).
//
// Every device function takes a group as its first argument; all threads of the group call it
// with the same arguments. On the CPU a PE is one thread and ThreadGroup is the only group. Under
// nvcc, WarpGroup and BlockGroup spread copies over the warp or block.
#pragma once

#include "symmetra/core/platform.hpp"

namespace symmetra::device {

// One thread acting alone. Threads: the calling thread. Ordering: none added.
struct ThreadGroup {
  SYMMETRA_INLINE int thread_rank() const { return 0; }
  SYMMETRA_INLINE int size() const { return 1; }
  SYMMETRA_INLINE void sync() const {}
};

#if defined(__CUDACC__)
// The 32 threads of the calling warp. Threads: all lanes of the warp.
struct WarpGroup {
  __device__ __forceinline__ int thread_rank() const { return static_cast<int>(threadIdx.x % 32); }
  __device__ __forceinline__ int size() const { return 32; }
  __device__ __forceinline__ void sync() const { __syncwarp(); }
};

// All threads of the calling block. Threads: every thread of the block.
struct BlockGroup {
  __device__ __forceinline__ int thread_rank() const {
    return static_cast<int>(threadIdx.x + blockDim.x * (threadIdx.y + blockDim.y * threadIdx.z));
  }
  __device__ __forceinline__ int size() const {
    return static_cast<int>(blockDim.x * blockDim.y * blockDim.z);
  }
  __device__ __forceinline__ void sync() const { __syncthreads(); }
};

// Four consecutive warps of the block: Hopper's warpgroup, 128 threads (NVSHMEM's _warpgroup
// forms). Threads: all threads of the warpgroup; the block's thread count is a multiple of 128.
// Its sync is the named barrier 1 + the warpgroup's index (barrier 0 is __syncthreads'), so code
// that uses named barriers itself keeps to other numbers around it.
struct WarpgroupGroup {
  __device__ __forceinline__ int linear() const {
    return static_cast<int>(threadIdx.x + blockDim.x * (threadIdx.y + blockDim.y * threadIdx.z));
  }
  __device__ __forceinline__ int thread_rank() const { return linear() % 128; }
  __device__ __forceinline__ int size() const { return 128; }
  __device__ __forceinline__ void sync() const {
    asm volatile("bar.sync %0, 128;" ::"r"(1 + linear() / 128) : "memory");
  }
};
#endif

}  // namespace symmetra::device
