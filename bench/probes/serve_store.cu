// Probe: what it costs a CPU thread to store a small payload into device memory and know it is
// there, each way the target of a staged remote put or atomic could (docs/proxy.md, "Performance
// across hosts"). The "burst" rows enqueue 64 stores and wait once: a store's cost when the
// target waits per flush, not per message, as CudaBackend::serve_store does ("burst pinned
// enqueue"). "kernel atomic, mapped result" is the host-initiated atomics' way (AmoResults);
// "kernel atomic (serve_amo)" the way before it. Results:
// bench/results/nvidia-h200-serve-store.txt.
//   nvcc -O2 -arch=sm_90 -o /tmp/ss bench/probes/serve_store.cu -lcuda && /tmp/ss
// Prints p50 and p90 in us per store, one line per way and size, and JSON lines.
#include <cuda.h>
#include <cuda_runtime.h>

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <vector>

#include "check.hpp"

// serve_amo's shape: one thread, one word.
__global__ void add_word(unsigned long long* w, unsigned long long v, unsigned long long* out) {
  *out = atomicAdd(w, v);
}
// The payload read by the GPU from mapped pinned memory and stored by one block.
// An atomic whose old value goes to mapped pinned memory with a flag after it, so that the host
// spins on the flag instead of copying the result back and synchronizing the stream.
__global__ void add_word_mapped(unsigned long long* w, unsigned long long v,
                                volatile unsigned long long* out, volatile unsigned int* flag,
                                unsigned int seq) {
  out[0] = atomicAdd(w, v);
  __threadfence_system();
  *flag = seq;
}
__global__ void copy_in(std::uint64_t* dst, const std::uint64_t* src, std::size_t words) {
  for (std::size_t i = threadIdx.x; i < words; i += blockDim.x) dst[i] = src[i];
}

struct Result {
  double p50, p90;
};

Result time_it(int reps, const std::function<void()>& once) {
  for (int i = 0; i < reps / 10 + 10; ++i) once();  // warm up
  std::vector<double> us(reps);
  for (int i = 0; i < reps; ++i) {
    const auto t0 = std::chrono::steady_clock::now();
    once();
    us[i] =
        std::chrono::duration<double, std::micro>(std::chrono::steady_clock::now() - t0).count();
  }
  std::sort(us.begin(), us.end());
  return {us[reps / 2], us[reps * 9 / 10]};
}

int main() {
  CK(cudaSetDevice(0));
  cudaStream_t s;
  CK(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
  const std::size_t max_bytes = 32768;
  void* dev = nullptr;
  CK(cudaMalloc(&dev, max_bytes));
  std::vector<std::byte> pageable(max_bytes, std::byte{7});
  void* pinned = nullptr;
  const int burst = 64;  // stores enqueued back to back, then one sync: the per-store enqueue cost
  CK(cudaHostAlloc(&pinned, max_bytes * burst, cudaHostAllocMapped));
  void* mapped = nullptr;
  CK(cudaHostGetDevicePointer(&mapped, pinned, 0));
  unsigned long long* d_out = nullptr;
  CK(cudaMalloc(&d_out, sizeof(*d_out)));
  const int reps = 2000;
  std::printf("%-28s %7s %8s %8s\n", "way", "bytes", "p50 us", "p90 us");
  auto report = [&](const char* way, std::size_t bytes, Result r) {
    std::printf("%-28s %7zu %8.2f %8.2f\n", way, bytes, r.p50, r.p90);
    std::printf(
        "{\"probe\": \"serve_store\", \"way\": \"%s\", \"bytes\": %zu, \"p50_us\": %.3f, "
        "\"p90_us\": %.3f}\n",
        way, bytes, r.p50, r.p90);
  };
  for (std::size_t bytes : {std::size_t{8}, std::size_t{128}, std::size_t{8192}, max_bytes}) {
    report("memcpy_async pageable", bytes, time_it(reps, [&] {
             CK(cudaMemcpyAsync(dev, pageable.data(), bytes, cudaMemcpyHostToDevice, s));
             CK(cudaStreamSynchronize(s));
           }));
    report("memcpy_async pinned", bytes, time_it(reps, [&] {
             std::memcpy(pinned, pageable.data(), bytes);
             CK(cudaMemcpyAsync(dev, pinned, bytes, cudaMemcpyHostToDevice, s));
             CK(cudaStreamSynchronize(s));
           }));
    report("memcpy sync pageable", bytes, time_it(reps, [&] {
             CK(cudaMemcpy(dev, pageable.data(), bytes, cudaMemcpyHostToDevice));
           }));
    report("kernel reads mapped", bytes, time_it(reps, [&] {
             std::memcpy(pinned, pageable.data(), bytes);
             copy_in<<<1, 256, 0, s>>>(static_cast<std::uint64_t*>(dev),
                                       static_cast<const std::uint64_t*>(mapped), bytes / 8);
             CK(cudaStreamSynchronize(s));
           }));
  }
  report("stream_write_value64", 8, time_it(reps, [&] {
           CU(cuStreamWriteValue64(reinterpret_cast<CUstream>(s),
                                   reinterpret_cast<CUdeviceptr>(dev), 42, 0));
           CK(cudaStreamSynchronize(s));
         }));
  report("kernel atomic (serve_amo)", 8, time_it(reps, [&] {
           add_word<<<1, 1, 0, s>>>(static_cast<unsigned long long*>(dev), 1, d_out);
           unsigned long long r = 0;
           CK(cudaMemcpyAsync(&r, d_out, sizeof(r), cudaMemcpyDeviceToHost, s));
           CK(cudaStreamSynchronize(s));
         }));
  // Enqueued, not waited for: what each store costs when a flush completes many (the target
  // syncs once per quiet instead of once per message). Per store: a burst's time / burst.
  auto per_store = [&](Result r) { return Result{r.p50 / burst, r.p90 / burst}; };
  for (std::size_t bytes : {std::size_t{8}, std::size_t{128}, std::size_t{8192}}) {
    report("burst pinned enqueue", bytes, per_store(time_it(reps / 10, [&] {
             for (int i = 0; i < burst; ++i) {
               auto* slot = static_cast<std::byte*>(pinned) + i * max_bytes;
               std::memcpy(slot, pageable.data(), bytes);
               CK(cudaMemcpyAsync(static_cast<std::byte*>(dev) + (i * 8) % max_bytes, slot, bytes,
                                  cudaMemcpyHostToDevice, s));
             }
             CK(cudaStreamSynchronize(s));
           })));
  }
  report("burst write_value64 enqueue", 8, per_store(time_it(reps / 10, [&] {
           for (int i = 0; i < burst; ++i)
             CU(cuStreamWriteValue64(reinterpret_cast<CUstream>(s),
                                     reinterpret_cast<CUdeviceptr>(dev) + 8 * i, i, 0));
           CK(cudaStreamSynchronize(s));
         })));
  report("burst kernel atomic enqueue", 8, per_store(time_it(reps / 10, [&] {
           for (int i = 0; i < burst; ++i)
             add_word<<<1, 1, 0, s>>>(static_cast<unsigned long long*>(dev), 1, d_out);
           CK(cudaStreamSynchronize(s));
         })));
  {
    auto* out = static_cast<volatile unsigned long long*>(pinned);
    auto* flag = reinterpret_cast<volatile unsigned int*>(static_cast<std::byte*>(pinned) + 64);
    auto* d_res = static_cast<unsigned long long*>(mapped);
    auto* d_flag = reinterpret_cast<unsigned int*>(static_cast<std::byte*>(mapped) + 64);
    unsigned int seq = 0;
    report("kernel atomic, mapped result", 8, time_it(reps, [&] {
             ++seq;
             add_word_mapped<<<1, 1, 0, s>>>(static_cast<unsigned long long*>(dev), 1, d_res,
                                             d_flag, seq);
             while (*flag != seq) {
             }
             (void)*out;
           }));
    CK(cudaStreamSynchronize(s));
  }
  report("empty sync", 0, time_it(reps, [&] { CK(cudaStreamSynchronize(s)); }));
  CK(cudaFree(d_out));
  CK(cudaFreeHost(pinned));
  CK(cudaFree(dev));
  CK(cudaStreamDestroy(s));
  return 0;
}
