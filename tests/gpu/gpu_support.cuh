// Helpers of the gpu-labelled tests: CUDA error checks, a per-PE stream, device-side patterns.
#pragma once

#include <cuda_runtime.h>
#include <gtest/gtest.h>

#include <cstdint>
#include <vector>

#include "support/pe_runner.hpp"

#define CK(call)                                                                        \
  do {                                                                                  \
    const cudaError_t ck_rc_ = (call);                                                  \
    ASSERT_EQ(ck_rc_, cudaSuccess) << #call << ": " << cudaGetErrorString(ck_rc_);      \
  } while (0)

namespace symmetra::testing {

// Value i of what PE `pe` sends in round `round` under `seed`: computable on host and device.
__host__ __device__ inline std::uint64_t gpattern(std::uint64_t seed, int pe, std::uint64_t round,
                                                  std::uint64_t i) {
  std::uint64_t x = seed ^ (static_cast<std::uint64_t>(pe) << 48) ^ (round << 24) ^ i;
  x ^= x >> 31;
  x *= 0x9e3779b97f4a7c15ull;
  x ^= x >> 29;
  return x | 1;
}

// A non-blocking stream for one PE: PEs that are threads of one process must not meet on the
// legacy default stream, which would serialize kernels that wait for each other.
struct PeStream {
  cudaStream_t s = nullptr;
  PeStream() { cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking); }
  ~PeStream() { cudaStreamDestroy(s); }
  operator cudaStream_t() const { return s; }
};

}  // namespace symmetra::testing
