// Kernels that symmetra-gpu-perf and the probe of its variants (bench/probes/gpu_variants.cu)
// share: the put_signal ping-pong and its raw baseline, the block put and its raw bulk copy, and
// the pattern and compare kernels that check a copy before it is timed.
#pragma once

#include <cuda_runtime.h>

#include <cstddef>
#include <cstdint>

#include "symmetra/device.hpp"

namespace symmetra::bench {
namespace sd = symmetra::device;

// --- ping-pong kernels: PE 0 starts, PE 1 answers; `iters` round trips -------------------------
__global__ void symmetra_pingpong(sd::Context ctx, std::uint64_t* data, std::uint64_t* sig,
                                  int iters) {
  const int other = 1 - ctx.my_pe;
  const std::uint64_t v = 7;
  for (int i = 1; i <= iters; ++i) {
    if (ctx.my_pe == 0) {
      sd::put_signal(sd::ThreadGroup{}, ctx, data, &v, 1, sig, static_cast<std::uint64_t>(i),
                     symmetra::SignalOp::kSet, other);
      sd::signal_wait_until(ctx, sig, symmetra::Cmp::kGe, static_cast<std::uint64_t>(i));
    } else {
      sd::signal_wait_until(ctx, sig, symmetra::Cmp::kGe, static_cast<std::uint64_t>(i));
      sd::put_signal(sd::ThreadGroup{}, ctx, data, &v, 1, sig, static_cast<std::uint64_t>(i),
                     symmetra::SignalOp::kSet, other);
    }
  }
}

// The baseline: the same exchange with volatile flags and a system fence, nothing else.
__global__ void raw_pingpong(volatile std::uint64_t* mine, volatile std::uint64_t* theirs,
                             volatile std::uint64_t* their_data, int me, int iters) {
  for (int i = 1; i <= iters; ++i) {
    if (me == 0) {
      *their_data = 7;
      __threadfence_system();
      *theirs = i;
      while (*mine < static_cast<std::uint64_t>(i)) {
      }
    } else {
      while (*mine < static_cast<std::uint64_t>(i)) {
      }
      *their_data = 7;
      __threadfence_system();
      *theirs = i;
    }
  }
}

// A raw bulk copy (kUnroll int4 loads in flight per thread; kStreaming: streaming stores), the
// block put's baseline.
template <int kUnroll, bool kStreaming>
__global__ void raw_copy(int4* dst, const int4* src, std::size_t vecs) {
  const std::size_t per = (vecs + gridDim.x - 1) / gridDim.x;
  const std::size_t lo = per * blockIdx.x, hi = lo + per < vecs ? lo + per : vecs;
  const std::size_t n = blockDim.x;
  std::size_t i = lo + threadIdx.x;
  for (; i + (kUnroll - 1) * n < hi; i += kUnroll * n) {
    int4 v[kUnroll];
#pragma unroll
    for (int u = 0; u < kUnroll; ++u) v[u] = src[i + u * n];
#pragma unroll
    for (int u = 0; u < kUnroll; ++u) {
      if (kStreaming)
        __stcs(&dst[i + u * n], v[u]);
      else
        dst[i + u * n] = v[u];
    }
  }
  for (; i < hi; i += n) dst[i] = src[i];
}

__global__ void fill_pattern(int4* p, std::size_t vecs) {
  for (std::size_t i = threadIdx.x + static_cast<std::size_t>(blockIdx.x) * blockDim.x; i < vecs;
       i += static_cast<std::size_t>(blockDim.x) * gridDim.x) {
    const int v = static_cast<int>(i);
    p[i] = make_int4(v, v ^ 0x5555, v * 3 + 1, ~v);
  }
}

// Counts 16-byte words that differ between a and b (checks a candidate copy before timing it).
__global__ void count_diff(const int4* a, const int4* b, std::size_t vecs,
                           unsigned long long* diff) {
  for (std::size_t i = threadIdx.x + static_cast<std::size_t>(blockIdx.x) * blockDim.x; i < vecs;
       i += static_cast<std::size_t>(blockDim.x) * gridDim.x) {
    const int4 x = a[i], y = b[i];
    if (x.x != y.x || x.y != y.y || x.z != y.z || x.w != y.w) atomicAdd(diff, 1ull);
  }
}

// Block puts of kChunk-byte pieces dealt round-robin to the blocks (piece c to block c % grid):
// the library's put, with the grid sweeping one window of addresses.
template <std::size_t kChunk>
__global__ void block_put_interleaved(sd::Context ctx, char* dst, const char* src,
                                      std::size_t bytes, int pe) {
  for (std::size_t lo = kChunk * blockIdx.x; lo < bytes; lo += kChunk * gridDim.x)
    sd::putmem(sd::BlockGroup{}, ctx, dst + lo, src + lo, kChunk < bytes - lo ? kChunk : bytes - lo,
               pe);
}

// Many blocks, each putting its slice with the block group.
__global__ void block_put(sd::Context ctx, char* dst, const char* src, std::size_t bytes, int pe) {
  // Slices of whole 16-byte groups covering all of `bytes`: round the share up, then to 16 (the
  // share rounded down lost the last bytes where it was already a multiple of 16).
  const std::size_t per = ((bytes + gridDim.x - 1) / gridDim.x + 15) & ~std::size_t{15};
  const std::size_t lo = per * blockIdx.x;
  if (lo >= bytes) return;
  sd::putmem(sd::BlockGroup{}, ctx, dst + lo, src + lo, per < bytes - lo ? per : bytes - lo, pe);
}

}  // namespace symmetra::bench
