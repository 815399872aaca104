// Helpers of the gpu-labelled tests: CUDA error checks, a per-PE stream, device-side patterns.
#pragma once

#include <cuda_runtime.h>
#include <gtest/gtest.h>

#include <cstdint>
#include <cstdio>
#include <cstdlib>
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

// PEs that share a GPU as threads must never call what waits for the whole device
// (cudaDeviceSynchronize, cudaFree, cudaFreeHost, cudaHostUnregister, a lazily loaded kernel's
// first launch): a peer's kernel that waits for this PE's next kernel never ends, and neither
// does the call (bench/probes/blocking_calls.cu measured the list; docs/gpu_backend.md). Tests
// clear, allocate and free private device memory through these stream-ordered helpers instead.
inline void cuda_or_die(cudaError_t rc, const char* what) {
  if (rc == cudaSuccess) return;
  std::fprintf(stderr, "%s: %s\n", what, cudaGetErrorString(rc));
  std::abort();
}

// Sets `bytes` at device address p to `value` and waits for it, on this thread's own stream.
inline void clear_device(void* p, std::size_t bytes, int value = 0) {
  thread_local PeStream s;
  cuda_or_die(cudaMemsetAsync(p, value, bytes, s), "cudaMemsetAsync");
  cuda_or_die(cudaStreamSynchronize(s), "cudaStreamSynchronize");
}

// Copies host bytes to the device and waits until they landed: a plain cudaMemcpy from pageable
// memory may return before its DMA ends, and a kernel of another stream could read early.
inline void copy_to_device(void* dst, const void* src, std::size_t bytes) {
  thread_local PeStream s;
  cuda_or_die(cudaMemcpyAsync(dst, src, bytes, cudaMemcpyHostToDevice, s), "cudaMemcpyAsync");
  cuda_or_die(cudaStreamSynchronize(s), "cudaStreamSynchronize");
}

// n private device elements, zeroed; allocated and freed stream-ordered (cudaMallocAsync,
// cudaFreeAsync), so neither end waits for other PEs' kernels.
template <class T>
class DeviceArray {
 public:
  explicit DeviceArray(std::size_t n = 1) : bytes_(n * sizeof(T)) {
    cuda_or_die(cudaMallocAsync(reinterpret_cast<void**>(&p_), bytes_, s_), "cudaMallocAsync");
    cuda_or_die(cudaMemsetAsync(p_, 0, bytes_, s_), "cudaMemsetAsync");
    cuda_or_die(cudaStreamSynchronize(s_), "cudaStreamSynchronize");
  }
  ~DeviceArray() {
    cudaFreeAsync(p_, s_);
    cudaStreamSynchronize(s_);
  }
  DeviceArray(const DeviceArray&) = delete;
  DeviceArray& operator=(const DeviceArray&) = delete;
  T* get() const { return p_; }
  operator T*() const { return p_; }
  void zero() const { clear_device(p_, bytes_); }
  T read(std::size_t i = 0) const {  // element i, copied to the host
    T v{};
    cuda_or_die(cudaMemcpyAsync(&v, p_ + i, sizeof(T), cudaMemcpyDeviceToHost, s_), "cudaMemcpyAsync");
    cuda_or_die(cudaStreamSynchronize(s_), "cudaStreamSynchronize");
    return v;
  }

 private:
  PeStream s_;
  std::size_t bytes_;
  T* p_ = nullptr;
};

}  // namespace symmetra::testing
