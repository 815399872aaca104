// Helpers of the gpu-labelled tests: CUDA error checks, a per-PE stream, device-side patterns.
#pragma once

#include <cuda_runtime.h>
#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <thread>
#include <vector>

#include "support/pe_runner.hpp"

#define CK(call)                                                                   \
  do {                                                                             \
    const cudaError_t ck_rc_ = (call);                                             \
    ASSERT_EQ(ck_rc_, cudaSuccess) << #call << ": " << cudaGetErrorString(ck_rc_); \
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

// Progress of stream-ordered tests, for a hang: kernels bump per-PE counters in host-mapped
// memory (readable with no CUDA call, so nothing waits for the stuck GPU) and the host bumps its
// enqueued calls; a watchdog thread prints the table when nothing moved for 3 s. It tells a PE
// whose kernels never ran from one whose kernel waits. Counters per PE: [0] fill blocks run,
// [1] marks run (a one-thread kernel right before the collective), [2] checks run, [3] host calls.
class ProgressBoard {
 public:
  static constexpr int kMaxPes = 64;
  static ProgressBoard& get() {
    static ProgressBoard* b = new ProgressBoard();  // never destroyed: the watchdog outlives tests
    return *b;
  }
  unsigned long long* pe(int p) const { return dev_ + 4 * p; }  // device address of PE p's counters
  void host_call(int p) { __atomic_add_fetch(&host_[4 * p + 3], 1ull, __ATOMIC_RELAXED); }
  // The watchdog reports only while some PE is inside a watched section (Watch).
  struct Watch {
    Watch() { ++get().active_; }
    ~Watch() { --get().active_; }
  };

 private:
  ProgressBoard() {
    void* h = nullptr;
    if (cudaHostAlloc(&h, sizeof(unsigned long long) * 4 * kMaxPes, cudaHostAllocMapped) !=
        cudaSuccess)
      std::abort();
    host_ = static_cast<unsigned long long*>(h);
    std::memset(host_, 0, sizeof(unsigned long long) * 4 * kMaxPes);
    void* d = nullptr;
    if (cudaHostGetDevicePointer(&d, h, 0) != cudaSuccess) std::abort();
    dev_ = static_cast<unsigned long long*>(d);
    std::thread([this] { watch(); }).detach();
  }
  void watch() {
    std::vector<unsigned long long> last(4 * kMaxPes, 0);
    auto still = std::chrono::steady_clock::now();
    for (;;) {
      std::this_thread::sleep_for(std::chrono::milliseconds(200));
      bool moved = false;
      for (int i = 0; i < 4 * kMaxPes; ++i) {
        const unsigned long long v = __atomic_load_n(&host_[i], __ATOMIC_RELAXED);
        moved |= v != last[i];
        last[i] = v;
      }
      const auto now = std::chrono::steady_clock::now();
      if (moved) still = now;
      if (now - still < std::chrono::seconds(3) || active_.load() == 0) continue;
      bool any = false;
      for (int i = 0; i < 4 * kMaxPes; ++i) any |= last[i] != 0;
      if (any) {
        std::fprintf(stderr,
                     "[progress] nothing moved for 3 s: pe fill-blocks marks checks host-calls\n");
        for (int p = 0; p < kMaxPes; ++p)
          if (last[4 * p + 3] != 0)
            std::fprintf(stderr, "[progress] pe %d: %llu %llu %llu %llu\n", p, last[4 * p],
                         last[4 * p + 1], last[4 * p + 2], last[4 * p + 3]);
      }
      still = now + std::chrono::seconds(7);  // at most one report per 10 s
    }
  }
  unsigned long long* host_ = nullptr;
  unsigned long long* dev_ = nullptr;
  std::atomic<int> active_{0};
};

// Bumps one progress counter (one thread of one block).
static __global__ void progress_mark(unsigned long long* counter) {
  atomicAdd_system(counter, 1ull);
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
// How many rounds a long loop of calls runs: `n`, or a twentieth of it (at least 10) where the
// PEs are on forced hosts (SYMMETRA_HOSTS > 1, tools/gpu-check --remote), whose every call
// crosses TCP through the proxy ring.
inline int rounds(int n) {
  const char* h = std::getenv("SYMMETRA_HOSTS");
  return h != nullptr && std::atoi(h) > 1 ? (n / 20 > 10 ? n / 20 : 10) : n;
}

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
    cuda_or_die(cudaMemcpyAsync(&v, p_ + i, sizeof(T), cudaMemcpyDeviceToHost, s_),
                "cudaMemcpyAsync");
    cuda_or_die(cudaStreamSynchronize(s_), "cudaStreamSynchronize");
    return v;
  }

 private:
  PeStream s_;
  std::size_t bytes_;
  T* p_ = nullptr;
};

// Bytes [0, bytes) of `p` as PE `pe` sends them in `round` (gpattern's low byte), and the count
// of those that differ, added to *bad: the byte-pattern checks of the device API tests.
inline __global__ void fill_kernel(unsigned char* p, size_t bytes, std::uint64_t seed, int pe,
                                   std::uint64_t round) {
  for (size_t i = blockIdx.x * blockDim.x + threadIdx.x; i < bytes; i += gridDim.x * blockDim.x)
    p[i] = static_cast<unsigned char>(gpattern(seed, pe, round, i));
}

inline __global__ void count_mismatch(const unsigned char* p, size_t bytes, std::uint64_t seed,
                                      int pe, std::uint64_t round, unsigned long long* bad) {
  for (size_t i = blockIdx.x * blockDim.x + threadIdx.x; i < bytes; i += gridDim.x * blockDim.x)
    if (p[i] != static_cast<unsigned char>(gpattern(seed, pe, round, i))) atomicAdd(bad, 1ull);
}

}  // namespace symmetra::testing
